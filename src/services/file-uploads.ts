import type { BlobRef, BlobStore } from "../blobs/blob-store.js";
import type { Store } from "../store/store.js";

/**
 * Records that a file's bytes arrived, with the size of the bytes its blob holds. Each upload
 * records after its own bytes are in place, and the records of one file take turns in this
 * process: two uploads to one signed URL or MLflow artifact path, finishing in either order, leave
 * the size of the bytes that stayed (the size each upload counted could be one upload's while the
 * bytes were the other's). Across several processes the turns are not shared: see docs/api.md.
 */
export class UploadRecorder {
  private readonly turns = new Map<number, Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly blobs: BlobStore,
  ) {}

  async record(fileId: number, ref: BlobRef, now: number): Promise<void> {
    const previous = this.turns.get(fileId) ?? Promise.resolve();
    const turn = previous.then(async () => {
      const size = await this.blobs.size(ref);
      if (size !== undefined) await this.store.markFileUploaded(fileId, size, now);
    });
    const settled = turn.catch(() => {});
    this.turns.set(fileId, settled);
    try {
      await turn;
    } finally {
      if (this.turns.get(fileId) === settled) this.turns.delete(fileId);
    }
  }
}
