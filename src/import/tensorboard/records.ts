import { crc32c } from "@node-rs/crc32";
import type { FileHandle } from "node:fs/promises";

/**
 * TFRecord framing of TensorBoard event files: each record is
 *   uint64 length (little-endian) · uint32 masked CRC32C of those 8 bytes · data · uint32 masked CRC32C of the data.
 * Records are read with both CRCs checked. A record whose data CRC fails is skipped (its length
 * was good, so the next record is found); a length whose CRC fails cannot be trusted, so the
 * reader scans forward byte by byte to the next position whose length CRC holds. A file ending
 * inside a record (a writer still writing it, or a cut file) ends the read before that record:
 * `end` is where a later read resumes.
 */

export const HEADER_BYTES = 12;
export const FOOTER_BYTES = 4;
/** Larger records are refused as corrupt: TensorBoard's own reader has no limit, but an image or a graph past 256 MiB is not a record. */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;
const CHUNK_BYTES = 4 * 1024 * 1024;

/** The CRC TFRecord stores: CRC32C rotated right by 15 bits plus a constant. */
export function maskedCrc32c(bytes: Uint8Array): number {
  const crc = crc32c(bytes);
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

/** A record that could not be read: the byte offset of its start in the file and why. */
export interface RecordProblem {
  offset: number;
  problem: string;
}

export interface RecordVisitor {
  /** One whole record whose CRCs hold; `data` is valid only during the call. */
  record(data: Buffer, offset: number): void;
  problem(problem: RecordProblem): void;
}

export interface ReadOutcome {
  /** The offset after the last whole record (or skipped bad data): where a later read resumes. */
  end: number;
  /** Set when the file ends inside a record: the bytes from `end` on are not a whole record yet. */
  incompleteAt?: number;
}

/**
 * Reads the records of an open file from `start`, in chunks, calling the visitor for each.
 * Only whole records are visited; `size` is the length to read up to (the file's size when the
 * read began, so a file still growing is read to a fixed end).
 */
export async function readRecords(file: FileHandle, start: number, size: number, visitor: RecordVisitor): Promise<ReadOutcome> {
  let buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let bufferStart = start; // file offset of buffer[0]
  let filled = 0; // bytes of buffer holding file data
  let at = 0; // position in buffer of the next record
  let resyncing = false;
  const load = async (needed: number): Promise<boolean> => {
    // Ensures buffer[at, at + needed) holds file bytes; false at the end of the file.
    if (at + needed <= filled) return true;
    if (bufferStart + at + needed > size) return false;
    const kept = filled - at;
    if (needed > buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.max(needed, buffer.length * 2));
      buffer.copy(bigger, 0, at, filled);
      buffer = bigger;
    } else buffer.copy(buffer, 0, at, filled);
    bufferStart += at;
    at = 0;
    filled = kept;
    while (filled < needed) {
      const want = Math.min(buffer.length - filled, size - (bufferStart + filled));
      const { bytesRead } = await file.read(buffer, filled, want, bufferStart + filled);
      if (bytesRead === 0) return false;
      filled += bytesRead;
    }
    return true;
  };

  for (;;) {
    if (!(await load(HEADER_BYTES))) {
      const end = bufferStart + at;
      return end < size ? { end, incompleteAt: end } : { end };
    }
    const offset = bufferStart + at;
    const header = buffer.subarray(at, at + 8);
    const lengthCrc = buffer.readUInt32LE(at + 8);
    const length = buffer.readUInt32LE(at) + buffer.readUInt32LE(at + 4) * 2 ** 32;
    if (maskedCrc32c(header) !== lengthCrc || length > MAX_RECORD_BYTES) {
      if (!resyncing) visitor.problem({ offset, problem: "corrupted record header (length CRC mismatch): skipped to the next record" });
      resyncing = true;
      at += 1;
      continue;
    }
    const total = HEADER_BYTES + length + FOOTER_BYTES;
    if (!(await load(total))) return { end: offset, incompleteAt: offset };
    resyncing = false;
    const data = buffer.subarray(at + HEADER_BYTES, at + HEADER_BYTES + length);
    if (maskedCrc32c(data) !== buffer.readUInt32LE(at + HEADER_BYTES + length)) {
      visitor.problem({ offset, problem: `corrupted record (data CRC mismatch, ${length} bytes): skipped` });
    } else visitor.record(data, offset);
    at += total;
  }
}
