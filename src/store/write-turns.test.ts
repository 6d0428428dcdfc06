import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WriteTurns } from "./write-turns.js";

describe("WriteTurns", () => {
  it("runs work one at a time, in the order asked for, each after the one before settled", async () => {
    const turns = new WriteTurns();
    const events: string[] = [];
    const slow = (name: string, ms: number) =>
      turns.take(async () => {
        events.push(`${name} start`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        events.push(`${name} end`);
        return name;
      });
    const results = await Promise.all([
      slow("group", 20),
      turns.take(() => {
        events.push("write");
        return "write";
      }),
      slow("next group", 1),
    ]);
    assert.deepEqual(results, ["group", "write", "next group"]);
    assert.deepEqual(events, ["group start", "group end", "write", "next group start", "next group end"]);
  });

  it("ends a turn whose work failed: the next one runs", async () => {
    const turns = new WriteTurns();
    await assert.rejects(
      turns.take(() => {
        throw new Error("failed write");
      }),
      /failed write/,
    );
    await assert.rejects(
      turns.take(() => Promise.reject(new Error("failed group"))),
      /failed group/,
    );
    assert.equal(await turns.take(() => 42), 42);
  });
});
