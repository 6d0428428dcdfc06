import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`); playwright-core never downloads a browser. */
const CHROMIUM = process.env.STEPWISE_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Flags for a machine without internet: no background connections (they would be refused, many
 * at a time), no GPU, no sandbox (CI runs as root). Playwright gives every launch a fresh,
 * empty profile directory of its own.
 */
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

/** Headless Chromium; a clear error when the Debian package is missing. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install Debian's package (scripts/test-prerequisites.sh, which npm test runs first, or apt-get install chromium) or set STEPWISE_CHROMIUM`,
    );
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}
