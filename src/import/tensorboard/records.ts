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

/**
 * Records up to this size are checked by the table-driven CRC below, longer ones by
 * @node-rs/crc32's SIMD code: a call into native code costs ~180 ns whatever the length, more than
 * the whole CRC of a 40-byte scalar event in JavaScript (docs/decisions.md, TensorBoard import).
 */
const NATIVE_CRC_FROM = 256;

/** CRC32C (Castagnoli, reflected polynomial 0x82F63B78) tables for slicing by 8 bytes. */
const TABLES = (() => {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    tables[0]![n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    let c = tables[0]![n]!;
    for (let t = 1; t < 8; t++) {
      c = tables[0]![c & 0xff]! ^ (c >>> 8);
      tables[t]![n] = c >>> 0;
    }
  }
  return tables;
})();
const [T0, T1, T2, T3, T4, T5, T6, T7] = TABLES as [
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
];

/** CRC32C of buf[start, end). */
export function crc32cOf(buf: Buffer, start: number, end: number): number {
  if (end - start >= NATIVE_CRC_FROM) return crc32c(buf.subarray(start, end));
  let crc = 0xffffffff;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    crc ^= buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24);
    crc =
      T7[crc & 0xff]! ^
      T6[(crc >>> 8) & 0xff]! ^
      T5[(crc >>> 16) & 0xff]! ^
      T4[crc >>> 24]! ^
      T3[buf[i + 4]!]! ^
      T2[buf[i + 5]!]! ^
      T1[buf[i + 6]!]! ^
      T0[buf[i + 7]!]!;
  }
  for (; i < end; i++) crc = T0[(crc ^ buf[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The CRC TFRecord stores: CRC32C of buf[start, end) rotated right by 15 bits plus a constant. */
export function maskedCrc32c(buf: Buffer, start = 0, end = buf.length): number {
  const crc = crc32cOf(buf, start, end);
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

/** A record that could not be read: the byte offset of its start in the file and why. */
export interface RecordProblem {
  offset: number;
  problem: string;
}

export interface RecordVisitor {
  /** One whole record whose CRCs hold: its data is buf[start, end), valid only during the call. */
  record(buf: Buffer, start: number, end: number, offset: number): void;
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
    const lengthCrc = buffer.readUInt32LE(at + 8);
    const length = buffer.readUInt32LE(at) + buffer.readUInt32LE(at + 4) * 2 ** 32;
    if (maskedCrc32c(buffer, at, at + 8) !== lengthCrc || length > MAX_RECORD_BYTES) {
      if (!resyncing) visitor.problem({ offset, problem: "corrupted record header (length CRC mismatch): skipped to the next record" });
      resyncing = true;
      at += 1;
      continue;
    }
    const total = HEADER_BYTES + length + FOOTER_BYTES;
    if (!(await load(total))) return { end: offset, incompleteAt: offset };
    resyncing = false;
    const dataStart = at + HEADER_BYTES;
    if (maskedCrc32c(buffer, dataStart, dataStart + length) !== buffer.readUInt32LE(dataStart + length)) {
      visitor.problem({ offset, problem: `corrupted record (data CRC mismatch, ${length} bytes): skipped` });
    } else visitor.record(buffer, dataStart, dataStart + length, offset);
    at += total;
  }
}
