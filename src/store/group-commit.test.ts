import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GroupCommit, type Outcome } from "./group-commit.js";

/** A commit that records each group it is given; items below zero fail alone, as if their savepoint rolled back. */
function recording(options: { failCommit?: boolean } = {}) {
  const groups: number[][] = [];
  const committed: number[] = [];
  const commit = (items: number[]): Outcome<number>[] => {
    groups.push(items);
    if (options.failCommit) throw new Error("disk full");
    return items.map((item) => {
      if (item < 0) return { ok: false, error: new Error(`item ${item} refused`) };
      committed.push(item);
      return { ok: true, value: item * 10 };
    });
  };
  return { groups, committed, commit };
}

const settle = <T>(promises: Promise<T>[]) => Promise.allSettled(promises);

describe("GroupCommit", () => {
  it("commits the items submitted in one turn of the event loop together, each getting its own result", async () => {
    const { groups, commit } = recording();
    const writes = new GroupCommit(commit);
    const results = await Promise.all([1, 2, 3, 4].map((item) => writes.submit(item)));
    assert.deepEqual(results, [10, 20, 30, 40]);
    assert.deepEqual(groups, [[1, 2, 3, 4]], "one commit for the four");
    assert.equal(await writes.submit(5), 50);
    assert.deepEqual(groups.at(-1), [5], "a later item: a group of its own");
  });

  it("settles nobody before the commit that holds their item has returned", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let commits = 0;
    const writes = new GroupCommit<number, number>(async (items) => {
      await gate;
      commits++;
      return items.map((item) => ({ ok: true as const, value: item }));
    });
    let settled = 0;
    const pending = [1, 2].map((item) => writes.submit(item).then(() => settled++));
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, 0);
    release();
    await Promise.all(pending);
    assert.deepEqual([commits, settled], [1, 2]);
  });

  it("fails only the item that failed; the others of its group are committed", async () => {
    const { groups, committed, commit } = recording();
    const writes = new GroupCommit(commit);
    const [a, bad, b] = await settle([1, -1, 2].map((item) => writes.submit(item)));
    assert.deepEqual(groups, [[1, -1, 2]]);
    assert.deepEqual(
      [a, b],
      [
        { status: "fulfilled", value: 10 },
        { status: "fulfilled", value: 20 },
      ],
    );
    assert.equal(bad!.status, "rejected");
    assert.deepEqual(committed, [1, 2]);
  });

  it("rejects every item of a group whose commit failed, and goes on with the next group", async () => {
    const failing = recording({ failCommit: true });
    const writes = new GroupCommit(failing.commit);
    const outcomes = await settle([1, 2].map((item) => writes.submit(item)));
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ["rejected", "rejected"],
    );
    assert.match(String((outcomes[0] as PromiseRejectedResult).reason), /disk full/);
  });

  it("splits a crowd into groups of at most maxItems, in the order submitted; idle waits for all", async () => {
    const { groups, commit } = recording();
    const writes = new GroupCommit(commit, 3);
    const pending = [1, 2, 3, 4, 5, 6, 7].map((item) => writes.submit(item));
    await writes.idle();
    assert.deepEqual(groups, [[1, 2, 3], [4, 5, 6], [7]]);
    assert.deepEqual(await Promise.all(pending), [10, 20, 30, 40, 50, 60, 70]);
  });
});
