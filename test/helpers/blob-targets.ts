import { after, before } from "node:test";
import { type SwiftS3, startSwiftS3 } from "./swift.js";

/** A place a test server keeps file bytes: the flags and environment that select it. */
export interface BlobTarget {
  name: string;
  flags(): Record<string, string>;
  env(): Record<string, string>;
}

let swift: SwiftS3 | undefined;
let prefixes = 0;

/**
 * The data directory, and a real S3 server (Swift) with bytes passing through Stepwise's signed
 * routes. Call startBlobTargets() once at the top of a test file: it starts Swift before the file's
 * first test and stops it after its last, so the file pays the start-up once.
 */
export const BLOB_TARGETS: BlobTarget[] = [
  { name: "data directory", flags: () => ({}), env: () => ({}) },
  {
    name: "S3 through the server",
    flags: () => ({ ...running().flags(`server-${++prefixes}`), "--s3-direct-urls": "false" }),
    env: () => running().env,
  },
];

export function startBlobTargets(): void {
  before(async () => {
    swift = await startSwiftS3();
    // In-process servers take their credentials from the environment, like the real one.
    Object.assign(process.env, swift.env);
  });
  after(async () => swift?.stop());
}

/** The Swift instance of this test file (startSwiftS3 directly for a file that only uses S3). */
export function running(): SwiftS3 {
  if (!swift) throw new Error("call startBlobTargets() at the top of the test file");
  return swift;
}
