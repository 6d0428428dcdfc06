import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { crc32c } from "@node-rs/crc32";
import { makeTempDir } from "../../../test/helpers/start-server.js";
import { crc32cOf, type RecordProblem, readRecords } from "./records.js";

/** An event file tensorboardX wrote: 11 records (the version event, then 10 scalars). */
const FIXTURE = new URL("../../../test/fixtures/tensorboard/logs/restart/events.out.tfevents.1700000000.fixture", import.meta.url);

async function readAll(bytes: Buffer) {
  const path = join(makeTempDir("stepwise-records-"), "events.out.tfevents.1");
  writeFileSync(path, bytes);
  const file = await open(path);
  const offsets: number[] = [];
  const problems: RecordProblem[] = [];
  try {
    const outcome = await readRecords(file, 0, bytes.length, {
      record: (_buf, _start, _end, offset) => offsets.push(offset),
      problem: (problem) => problems.push(problem),
    });
    return { offsets, problems, outcome };
  } finally {
    await file.close();
  }
}

describe("TFRecord reading", () => {
  it("computes CRC32C in JavaScript as the native library does, at every length and offset", () => {
    assert.equal(crc32cOf(Buffer.from("123456789"), 0, 9), 0xe3069283);
    const bytes = Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 131 + 7) & 0xff));
    for (const [start, end] of [
      [0, 0],
      [3, 11],
      [1, 255],
      [5, 600],
    ] as const)
      assert.equal(crc32cOf(bytes, start, end), crc32c(bytes.subarray(start, end)), `${start}..${end}`);
  });

  it("reads every record of a real event file", async () => {
    const { offsets, problems, outcome } = await readAll(readFileSync(FIXTURE));
    assert.deepEqual(offsets, [0, 40, 80, 122, 164, 206]);
    assert.deepEqual(problems, []);
    assert.deepEqual(outcome, { end: 248 });
  });

  it("skips past a record whose length is corrupted to the next good one, and reports where", async () => {
    const bytes = Buffer.from(readFileSync(FIXTURE));
    bytes.writeUInt8(bytes.readUInt8(80) ^ 0x01, 80); // the third record's length
    const { offsets, problems, outcome } = await readAll(bytes);
    assert.deepEqual(offsets, [0, 40, 122, 164, 206]);
    assert.equal(problems.length, 1, "one report for the whole corrupted stretch");
    assert.equal(problems[0]!.offset, 80);
    assert.match(problems[0]!.problem, /length CRC mismatch/);
    assert.deepEqual(outcome, { end: 248 });
  });

  it("stops before a record the file ends inside, so a later read resumes there", async () => {
    const bytes = readFileSync(FIXTURE).subarray(0, 170);
    const { offsets, outcome } = await readAll(bytes);
    assert.deepEqual(offsets, [0, 40, 80, 122]);
    assert.deepEqual(outcome, { end: 164, incompleteAt: 164 });
  });
});
