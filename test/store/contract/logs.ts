import assert from "node:assert/strict";
import { it } from "node:test";
import { compareConsoleLines } from "../../../src/domain/console-logs.js";
import type { AccountStore, ConsoleLine, ConsoleLineQuery, DataRow, LogStore, RunStore } from "../../../src/store/store.js";
import { ACTOR, newOrg, runInput, T0 } from "./backends.js";

const line = (lineNumber: number, time: number, message: string, logType: ConsoleLine["logType"] = "INFO"): ConsoleLine => ({
  lineNumber,
  time,
  message,
  logType,
  step: null,
});
const row = (logName: string, step: number, data: string): DataRow => ({ logName, step, data, dataType: "text", time: T0 });

/** Every page from offset 0, following nextOffset. */
async function allPages<T>(read: (offset: number) => Promise<{ items: T[]; nextOffset: number | null }>): Promise<T[][]> {
  const pages: T[][] = [];
  for (let offset: number | null = 0; offset !== null; ) {
    const page = await read(offset);
    pages.push(page.items);
    offset = page.nextOffset;
  }
  return pages;
}

/**
 * LogStore: console lines keyed (run, logType, lineNumber, time), and paging by count and bytes of
 * lines and data rows. Fixtures: runs (RunStore) in organizations (AccountStore).
 */
export function logContract(store: () => LogStore & RunStore & AccountStore): void {
  async function newRun() {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    return { s, orgId, runId: run.id };
  }
  const everything: ConsoleLineQuery = { limit: 10_000, offset: 0, maxBytes: 1 << 20 };

  it("keeps lines of two processes that share numbers, collapses re-sent lines, and reads by time, number, type", async () => {
    const { s, orgId, runId } = await newRun();
    const first = [line(1, T0, "a1"), line(2, T0 + 2, "a2"), line(1, T0 + 2, "a1 error", "ERROR")];
    const second = [line(1, T0 + 1, "b1"), line(2, T0 + 3, "b2")];
    assert.equal(await s.appendConsoleLines(orgId, runId, first, T0), 3);
    assert.equal(await s.appendConsoleLines(orgId, runId, second, T0), 2);
    assert.equal(await s.appendConsoleLines(orgId, runId, first, T0), 3, "a retry counts as accepted");
    await s.appendConsoleLines(orgId, runId, [line(2, T0 + 3, "b2 corrected")], T0);

    const read = await s.listConsoleLines(orgId, runId, everything);
    assert.equal(read.total, 5);
    assert.deepEqual(
      read.items.map((l) => l.message),
      ["a1", "b1", "a1 error", "a2", "b2 corrected"],
    );
    assert.deepEqual(read.items, [...read.items].sort(compareConsoleLines));
    const errors = await s.listConsoleLines(orgId, runId, { ...everything, logType: "ERROR" });
    assert.deepEqual([errors.total, errors.items.map((l) => l.message)], [1, ["a1 error"]]);
  });

  it("keeps the last of a console line or data row sent twice within one batch, as if sent one after another", async () => {
    const { s, orgId, runId } = await newRun();
    assert.equal(await s.appendConsoleLines(orgId, runId, [line(1, T0, "first"), line(2, T0, "other"), line(1, T0, "last")], T0), 3);
    const lines = await s.listConsoleLines(orgId, runId, everything);
    assert.deepEqual([lines.total, lines.items.map((l) => l.message)], [2, ["last", "other"]]);
    assert.equal(await s.appendDataRows(orgId, runId, [row("t", 1, "first"), row("t", 2, "other"), row("t", 1, "last")], T0), 3);
    const rows = await s.listDataRows(orgId, runId, everything);
    assert.deepEqual(
      rows.items.map((r) => [r.step, r.data]),
      [
        [1, "last"],
        [2, "other"],
      ],
    );
  });

  it("pages console lines by count and by bytes of message, always one line at least, and reads each line once", async () => {
    const { s, orgId, runId } = await newRun();
    const messages = ["xxx", "xxx", "xxx", "x".repeat(20), "x", "é", "xx"];
    const lines = messages.map((message, i) => line(i, T0 + i, message));
    await s.appendConsoleLines(orgId, runId, lines, T0);
    const pages = await allPages((offset) => s.listConsoleLines(orgId, runId, { limit: 2, offset, maxBytes: 7 }));
    // 3+3 fits 7; then 3 (20 would pass it); 20 alone (too big, but one line always fits); 1+2 (é is 2 bytes); 2.
    assert.deepEqual(
      pages.map((page) => page.map((l) => l.lineNumber)),
      [[0, 1], [2], [3], [4, 5], [6]],
    );
    const last = await s.listConsoleLines(orgId, runId, { limit: 2, offset: 6, maxBytes: 7 });
    assert.deepEqual([last.total, last.nextOffset], [7, null]);
  });

  it("answers every offset with the lines a whole read has there, from either end, for all types and for one", async () => {
    const { s, orgId, runId } = await newRun();
    const types = ["INFO", "ERROR", "PRINT"] as const;
    // Ties on time and on line number, so the order's later keys decide.
    const lines = Array.from({ length: 60 }, (_, i) => line(Math.floor(i / 3) % 4, T0 + Math.floor(i / 6), `m${i}`, types[i % 3]));
    await s.appendConsoleLines(orgId, runId, lines.slice(0, 30), T0);
    await s.appendConsoleLines(orgId, runId, lines.slice(20), T0);
    for (const logType of [undefined, "ERROR"] as const) {
      const whole = await s.listConsoleLines(orgId, runId, { ...everything, logType });
      assert.equal(whole.total, logType ? 20 : 60);
      for (let offset = 0; offset <= whole.total; offset++) {
        const page = await s.listConsoleLines(orgId, runId, { limit: 3, offset, maxBytes: 100, logType });
        assert.deepEqual(page.items, whole.items.slice(offset, offset + 3), `${logType} offset ${offset}`);
        assert.equal(page.nextOffset, offset + 3 < whole.total ? offset + 3 : null);
      }
    }
  });

  it("pages data rows by count and by bytes of data, by name then step", async () => {
    const { s, orgId, runId } = await newRun();
    await s.appendDataRows(orgId, runId, [row("b", 0, "1234"), row("a", 1, "12345678"), row("a", 0, "12"), row("b", 1, "1")], T0);
    const pages = await allPages((offset) => s.listDataRows(orgId, runId, { limit: 3, offset, maxBytes: 6 }));
    assert.deepEqual(
      pages.map((page) => page.map((r) => `${r.logName}${r.step}`)),
      [["a0"], ["a1"], ["b0", "b1"]],
    );
    const named = await allPages((offset) => s.listDataRows(orgId, runId, { logName: "b", limit: 1, offset, maxBytes: 100 }));
    assert.deepEqual(
      named.map((page) => page.map((r) => r.data)),
      [["1234"], ["1"]],
    );
    // Bytes are UTF-8 bytes: "ééé" is 3 characters but 6 bytes, so two do not fit in 7.
    await s.appendDataRows(orgId, runId, [row("u", 0, "ééé"), row("u", 1, "ééé")], T0);
    const utf8 = await allPages((offset) => s.listDataRows(orgId, runId, { logName: "u", limit: 10, offset, maxBytes: 7 }));
    assert.deepEqual(
      utf8.map((page) => page.length),
      [1, 1],
    );
  });

  // Many writers at once (WRITERS, backends.ts).
  it("counts console lines exactly when writers send and re-send batches at once", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    const line = (n: number) => ({ time: T0 + n, message: `line ${n}`, lineNumber: n, logType: "INFO" as const, step: null });
    // Every batch is sent twice by different writers: 8 distinct batches of 25 lines.
    await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        s.appendConsoleLines(
          orgId,
          run.id,
          Array.from({ length: 25 }, (_, k) => line((i % 8) * 25 + k)),
          T0,
        ),
      ),
    );
    const page = await s.listConsoleLines(orgId, run.id, { offset: 0, limit: 1000, maxBytes: 1 << 20 });
    assert.equal(page.total, 200);
    assert.equal(page.items.length, 200);
  });
}
