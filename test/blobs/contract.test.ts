import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { type BlobRef, type BlobStore, BlobTooLargeError } from "../../src/blobs/blob-store.js";
import { BLOB_BACKENDS } from "./backends.js";

let nextId = 1;
/** A fresh file's reference, so tests share a store but never a blob. */
const newRef = (): BlobRef => ({ orgId: "0b6c7e2a-1f1e-4a52-9d7e-6f4f0f1c2d3e", projectId: 3, runId: 7, fileId: nextId++ });

async function readAll(blobs: BlobStore, ref: BlobRef): Promise<Buffer | undefined> {
  const blob = await blobs.read(ref);
  if (!blob) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of blob.stream) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  assert.equal(blob.size, bytes.length, "the size read matches the bytes");
  return bytes;
}

/** A body that sends `parts` then fails, like a client whose connection drops mid-upload. */
function brokenBody(...parts: Buffer[]): Readable {
  return Readable.from(
    (async function* () {
      for (const part of parts) yield part;
      throw new Error("connection reset");
    })(),
  );
}

/** The BlobStore contract (src/blobs/blob-store.ts), run unchanged against every store in BLOB_BACKENDS. */
for (const backend of BLOB_BACKENDS) {
  describe(`BlobStore contract: ${backend.name}`, { timeout: 120_000 }, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>;
    before(async () => {
      opened = await backend.open();
    });
    after(async () => opened?.destroy());

    it("is usable", async () => {
      await opened.blobs.check();
    });

    it("stores bytes whole and reads them back with their size", async () => {
      const { blobs } = opened;
      const ref = newRef();
      assert.equal(await blobs.write(ref, Readable.from([Buffer.from("hello "), Buffer.from("world")]), 1024), 11);
      assert.equal((await readAll(blobs, ref))?.toString(), "hello world");
      assert.equal(await blobs.size(ref), 11);
      const empty = newRef();
      assert.equal(await blobs.write(empty, Readable.from([]), 1024), 0, "an empty file is a file");
      assert.deepEqual(await readAll(blobs, empty), Buffer.alloc(0));
    });

    it("answers undefined for a blob that is not there, and deletes idempotently", async () => {
      const { blobs } = opened;
      const ref = newRef();
      assert.equal(await blobs.read(ref), undefined);
      assert.equal(await blobs.size(ref), undefined);
      await blobs.write(ref, Readable.from([Buffer.from("x")]), 10);
      await blobs.delete(ref);
      assert.equal(await blobs.read(ref), undefined);
      await blobs.delete(ref);
    });

    it("deletes every blob of a run, saying how many and their bytes, and nothing of another run", async () => {
      const orgId = "0b6c7e2a-1f1e-4a52-9d7e-6f4f0f1c2d3e";
      const runRef = { orgId, projectId: 4, runId: 9000 + nextId++ };
      const otherRef = { orgId, projectId: 4, runId: 9000 + nextId++, fileId: nextId++ };
      const files = [nextId++, nextId++, nextId++].map((fileId) => ({ ...runRef, fileId }));
      for (const [index, ref] of files.entries())
        await opened.blobs.write(ref, Readable.from([Buffer.alloc(1000 * (index + 1), 1)]), 1 << 20);
      await opened.blobs.write(otherRef, Readable.from([Buffer.from("kept")]), 1 << 20);
      assert.deepEqual(await opened.blobs.deleteRun(runRef), { objects: 3, bytes: 6000 });
      for (const ref of files) assert.equal(await opened.blobs.size(ref), undefined);
      assert.equal(await opened.blobs.size(otherRef), 4, "another run's blob stays");
      assert.deepEqual(await opened.blobs.deleteRun(runRef), { objects: 0, bytes: 0 }, "again: nothing left, no error");
    });

    it("keeps blobs of different files apart", async () => {
      const { blobs } = opened;
      const a = newRef();
      const b = { ...a, fileId: nextId++ };
      const otherRun = { ...a, runId: a.runId + 1 };
      await blobs.write(a, Readable.from([Buffer.from("a")]), 10);
      await blobs.write(b, Readable.from([Buffer.from("b")]), 10);
      assert.equal((await readAll(blobs, a))?.toString(), "a");
      assert.equal((await readAll(blobs, b))?.toString(), "b");
      assert.equal(await blobs.read(otherRun), undefined, "a file ID under another run is another blob");
    });

    it("replaces earlier bytes only once a whole new body has arrived", async () => {
      const { blobs } = opened;
      const ref = newRef();
      await blobs.write(ref, Readable.from([Buffer.from("version 1")]), 1 << 30);
      await assert.rejects(blobs.write(ref, brokenBody(Buffer.alloc(1000, 2)), 1 << 30), /connection reset/);
      assert.equal((await readAll(blobs, ref))?.toString(), "version 1", "a broken small upload changes nothing");
      // Past one part of a multipart upload (5 MiB): the broken upload must leave no half object either.
      await assert.rejects(blobs.write(ref, brokenBody(Buffer.alloc(6 << 20, 3), Buffer.alloc(6 << 20, 4)), 1 << 30), /connection reset/);
      assert.equal((await readAll(blobs, ref))?.toString(), "version 1", "a broken large upload changes nothing");
      await blobs.write(ref, Readable.from([Buffer.from("version 2")]), 1 << 30);
      assert.equal((await readAll(blobs, ref))?.toString(), "version 2");
    });

    it("refuses bodies past the limit, keeping the earlier bytes, and takes exactly the limit", async () => {
      const { blobs } = opened;
      const ref = newRef();
      assert.equal(await blobs.write(ref, Readable.from([Buffer.alloc(1024, 1)]), 1024), 1024);
      await assert.rejects(blobs.write(ref, Readable.from([Buffer.alloc(800, 2), Buffer.alloc(800, 2)]), 1024), BlobTooLargeError);
      await assert.rejects(
        blobs.write(ref, Readable.from([Buffer.alloc(6 << 20, 3), Buffer.alloc(6 << 20, 3)]), 8 << 20),
        BlobTooLargeError,
        "also once a multipart upload has begun",
      );
      assert.deepEqual(await readAll(blobs, ref), Buffer.alloc(1024, 1));
    });

    it("round-trips a body of several parts byte for byte", async () => {
      const { blobs } = opened;
      const ref = newRef();
      const sent = createHash("sha256");
      const parts = Array.from({ length: 13 }, (_, i) => Buffer.alloc(1 << 20, i));
      for (const part of parts) sent.update(part);
      assert.equal(await blobs.write(ref, Readable.from(parts), 1 << 30), 13 << 20);
      const received = createHash("sha256").update((await readAll(blobs, ref))!);
      assert.equal(received.digest("hex"), sent.digest("hex"));
    });

    it("hands out direct URLs, when it has them, that move bytes without the server and expire", async (t) => {
      const { blobs } = opened;
      if (!blobs.direct) return t.skip("this store moves bytes through the server's signed routes");
      const ref = newRef();
      const now = Date.now();
      const upload = await blobs.direct.uploadUrl(ref, now, 60 * 60 * 1000);
      assert.ok(upload.startsWith(blobs.direct.origin), upload);
      const put = await fetch(upload, { method: "PUT", body: "direct bytes", headers: { "content-type": "image/png" } });
      assert.equal(put.status, 200, await put.text());
      assert.equal(await blobs.size(ref), 12);

      const headers = { contentType: "text/plain; charset=utf-8", contentDisposition: "attachment; filename*=UTF-8''n%C3%A4me.txt" };
      const got = await fetch(await blobs.direct.downloadUrl(ref, headers, now, 5 * 24 * 60 * 60 * 1000));
      assert.equal(got.status, 200);
      assert.equal(await got.text(), "direct bytes");
      assert.equal(got.headers.get("content-type"), headers.contentType);
      assert.equal(got.headers.get("content-disposition"), headers.contentDisposition);

      const longAgo = now - 2 * 60 * 60 * 1000;
      const expiredPut = await fetch(await blobs.direct.uploadUrl(ref, longAgo, 60 * 60 * 1000), { method: "PUT", body: "late" });
      assert.equal(expiredPut.status, 403, "an upload URL past its hour");
      const expiredGet = await fetch(await blobs.direct.downloadUrl(ref, headers, longAgo, 60 * 60 * 1000));
      assert.equal(expiredGet.status, 403, "a download URL past its time");
      const tampered = new URL(await blobs.direct.downloadUrl(ref, headers, now, 60 * 60 * 1000));
      tampered.searchParams.set("response-content-type", "text/html");
      assert.equal((await fetch(tampered)).status, 403, "changed response headers break the signature");
      assert.equal((await readAll(blobs, ref))?.toString(), "direct bytes");
    });

    it("finds which blobs of a run exist, with their sizes, one by one or by listing the run", async (t) => {
      const { blobs } = opened;
      if (!blobs.direct) return t.skip("only stores with direct uploads confirm them this way");
      const run = { orgId: "5d9e4c1a-0000-4000-8000-000000000001", projectId: 9, runId: 1000 + nextId++ };
      const refs = Array.from({ length: 40 }, () => ({ ...run, fileId: nextId++ }));
      const stored = refs.filter((_, i) => i % 3 !== 0);
      for (const [i, ref] of stored.entries()) await blobs.write(ref, Readable.from([Buffer.alloc(i + 1, 1)]), 1024);
      const expected = new Map(stored.map((ref, i) => [ref.fileId, i + 1]));
      // Another run's blob under a key that starts alike must not be found.
      await blobs.write({ ...run, runId: run.runId * 10, fileId: refs[0]!.fileId }, Readable.from([Buffer.from("x")]), 10);
      assert.deepEqual(await blobs.direct.sizesOf(refs), expected, "40 blobs: by listing");
      const few = refs.slice(0, 6);
      assert.deepEqual(
        await blobs.direct.sizesOf(few),
        new Map([...expected].filter(([id]) => few.some((ref) => ref.fileId === id))),
        "6 blobs: one by one",
      );
      assert.deepEqual(await blobs.direct.sizesOf([]), new Map());
    });
  });
}
