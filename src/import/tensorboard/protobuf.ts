/**
 * The few protobuf wire-format reads the event decoder needs (docs/decisions.md, "TensorBoard
 * import: a hand-written protobuf reader"): varints, fixed 32/64-bit numbers and length-delimited
 * fields, over a Buffer with explicit positions so the hot path (one scalar per event) allocates
 * nothing but the tag string.
 */

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

export class ProtobufError extends Error {}

/** Tags seen, by an FNV-1a hash of their bytes (Cursor.tag); cleared past MAX_TAGS, so bounded. */
const TAGS = new Map<number, { bytes: Buffer; text: string }>();
const MAX_TAGS = 100_000;

/** A cursor over one message: `pos` moves as fields are read; `end` is the message's end. */
export class Cursor {
  constructor(
    readonly buf: Buffer,
    public pos: number,
    readonly end: number,
  ) {}

  /** A varint as a number: exact up to 2^53, approximate beyond (callers range-check what they keep). */
  varint(): number {
    const { buf, end } = this;
    let pos = this.pos;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (pos >= end) throw new ProtobufError("truncated varint");
      const byte = buf[pos++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        this.pos = pos;
        return result;
      }
      scale *= 128;
    }
    throw new ProtobufError("varint longer than 10 bytes");
  }

  double(): number {
    if (this.pos + 8 > this.end) throw new ProtobufError("truncated double");
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  float(): number {
    if (this.pos + 4 > this.end) throw new ProtobufError("truncated float");
    const value = this.buf.readFloatLE(this.pos);
    this.pos += 4;
    return value;
  }

  /** A length-delimited field's bounds; the cursor moves past it. */
  bytes(): { start: number; end: number } {
    const length = this.varint();
    const start = this.pos;
    const end = start + length;
    if (end > this.end) throw new ProtobufError("length-delimited field past the end of its message");
    this.pos = end;
    return { start, end };
  }

  string(): string {
    const { start, end } = this.bytes();
    return this.buf.toString("utf8", start, end);
  }

  /**
   * A tag: a string that repeats in every event of a series, so decoded once and then found by
   * its bytes (a hash of them, then a byte comparison) instead of decoding UTF-8 each time.
   */
  tag(): string {
    const { start, end } = this.bytes();
    const { buf } = this;
    let hash = 0x811c9dc5;
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ buf[i]!, 0x01000193);
    const known = TAGS.get(hash);
    if (known !== undefined && known.bytes.length === end - start) {
      let same = true;
      for (let i = 0; i < known.bytes.length && same; i++) same = known.bytes[i] === buf[start + i];
      if (same) return known.text;
    }
    const text = buf.toString("utf8", start, end);
    if (TAGS.size >= MAX_TAGS) TAGS.clear();
    TAGS.set(hash, { bytes: Buffer.from(buf.subarray(start, end)), text });
    return text;
  }

  /** The cursor of an embedded message. */
  message(): Cursor {
    const { start, end } = this.bytes();
    return new Cursor(this.buf, start, end);
  }

  /** Skips a field of the wire type. */
  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.pos += 8;
        break;
      case WIRE_BYTES:
        this.bytes();
        return;
      case WIRE_FIXED32:
        this.pos += 4;
        break;
      default:
        throw new ProtobufError(`unsupported wire type ${wireType}`);
    }
    if (this.pos > this.end) throw new ProtobufError("truncated field");
  }

  /** A repeated double field, packed or not (one value then); appended to `out`. */
  doubles(wireType: number, out: number[]): void {
    if (wireType === WIRE_FIXED64) {
      out.push(this.double());
      return;
    }
    const { start, end } = this.bytes();
    for (let p = start; p + 8 <= end; p += 8) out.push(this.buf.readDoubleLE(p));
  }

  /** A repeated float field, packed or not. */
  floats(wireType: number, out: number[]): void {
    if (wireType === WIRE_FIXED32) {
      out.push(this.float());
      return;
    }
    const { start, end } = this.bytes();
    for (let p = start; p + 4 <= end; p += 4) out.push(this.buf.readFloatLE(p));
  }

  /** A repeated varint field (int32, int64, bool), packed or not; negative int32/int64 come back as 2^64 − n, out of range. */
  varints(wireType: number, out: number[]): void {
    if (wireType === WIRE_VARINT) {
      out.push(this.varint());
      return;
    }
    const inner = this.message();
    while (inner.pos < inner.end) out.push(inner.varint());
  }
}
