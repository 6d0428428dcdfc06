import { setTimeout as sleep } from "node:timers/promises";

/** What a condition returns when it holds. */
export type Truthy<T> = Exclude<T, false | 0 | "" | null | undefined>;

export interface WaitOptions {
  /** How long the condition may take to hold before the wait fails (default 10 s). */
  timeoutMs?: number;
  /** Pause between two checks (default 20 ms). */
  intervalMs?: number;
  /** What is awaited, for the error message (default "the condition"). */
  what?: string;
}

/**
 * Waits for something to happen instead of sleeping a fixed time: checks `condition` until it
 * returns a truthy value (returned) or the deadline passes (an error naming `what`, with the last
 * error the condition threw, if any). A condition that throws counts as not holding yet.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 20, what = "the condition" }: WaitOptions = {},
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value as Truthy<T>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause =
        lastError === undefined ? "" : ` (last check threw: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`waited ${timeoutMs} ms for ${what}, in vain${cause}`, { cause: lastError });
    }
    await sleep(intervalMs);
  }
}
