import assert from "node:assert/strict";
import { it } from "node:test";
import type { AccountStore, FileStore, NewFile, RunStore } from "../../../src/store/store.js";
import { ACTOR, newOrg, runInput, T0, WRITERS } from "./backends.js";

const file = (overrides: Partial<NewFile>): NewFile => ({
  logName: "img",
  fileName: "a.png",
  fileType: "png",
  fileSize: 1,
  time: T0,
  step: 0,
  ...overrides,
});

/**
 * FileStore: file records, registered idempotently, listed once uploaded, deleted, each in its
 * organization. Fixtures: runs and their log names (RunStore) in organizations (AccountStore).
 */
export function fileContract(store: () => FileStore & RunStore & AccountStore): void {
  it("registers files idempotently on (run, logName, fileName) and lists only uploaded ones, in order", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    const [first] = (await s.registerFiles(orgId, run.id, [file({ fileName: "b.png", step: 1 })], T0))!;
    const again = (await s.registerFiles(
      orgId,
      run.id,
      [file({ fileName: "b.png", step: 2, caption: "c" }), file({ fileName: "a.png", step: 2, sampleIndex: 0 })],
      T0,
    ))!;
    assert.equal(again[0]!.id, first!.id, "same file, same ID");
    assert.deepEqual([again[0]!.step, again[0]!.caption, again[0]!.uploadedAt], [2, "c", null]);
    assert.deepEqual(await s.listFiles(orgId, run.id, {}), [], "nothing uploaded yet");
    assert.deepEqual([again[0]!.orgId, again[0]!.projectId], [orgId, run.projectId], "the file names its blob's organization and project");
    assert.deepEqual(
      (await s.listFiles(orgId, run.id, { pending: true })).map((f) => f.fileName),
      ["b.png", "a.png"],
      "the files waiting for their bytes",
    );
    await s.markFileUploaded(first!.id, 42, T0 + 1);
    await s.markFileUploaded(again[1]!.id, 7, T0 + 1);
    const listed = await s.listFiles(orgId, run.id, {});
    assert.deepEqual(
      listed.map((f) => [f.fileName, f.fileSize]),
      [
        ["b.png", 42],
        ["a.png", 7],
      ],
      "null sample index first within a step",
    );
    assert.deepEqual(await s.getFile(first!.id), listed[0]);
    assert.deepEqual(await s.listFiles(orgId, run.id, { pending: true }), [], "none waits any more");
    assert.deepEqual(await s.listLogNames(orgId, run.id), [{ logName: "img", logType: "IMAGE", logGroup: null }]);
  });

  it("keeps files of other organizations out of registration and listing", async () => {
    const s = store();
    const [mine, theirs] = [await newOrg(s), await newOrg(s)];
    const { run } = await s.createRun(mine, runInput(), ACTOR);
    assert.equal(await s.registerFiles(theirs, run.id, [file({})], T0), undefined);
    const [registered] = (await s.registerFiles(mine, run.id, [file({})], T0))!;
    assert.deepEqual(await s.listFiles(theirs, run.id, { pending: true }), []);
    await s.markFileUploaded(registered!.id, 1, T0);
    assert.deepEqual(await s.listFiles(theirs, run.id, {}), []);
  });

  it("deletes a file record in its organization only", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    const [file] = (await s.registerFiles(
      orgId,
      run.id,
      [{ logName: "artifacts", fileName: "a.txt", fileType: "txt", fileSize: 1, time: T0, step: 0 }],
      T0,
    ))!;
    assert.equal(await s.deleteFile(await newOrg(s), file!.id), false);
    assert.equal(await s.deleteFile(orgId, file!.id), true);
    assert.equal(await s.getFile(file!.id), undefined);
  });

  // Many writers at once (WRITERS, backends.ts).
  it("gives concurrent registrations of one file name one ID", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    const file = (i: number) => ({ logName: "images/a", fileName: "x.png", fileType: "png", fileSize: i + 1, time: T0, step: i });
    const registered = await Promise.all(Array.from({ length: WRITERS }, (_, i) => s.registerFiles(orgId, run.id, [file(i)], T0)));
    assert.equal(new Set(registered.map((files) => files![0]!.id)).size, 1);
  });
}
