import { Cursor, WIRE_BYTES, WIRE_FIXED32, WIRE_FIXED64 } from "./protobuf.js";

/**
 * Decodes TensorBoard's Event protobuf (tensorflow/core/util/event.proto and summary.proto,
 * tensor.proto, the hparams and text plugins): only the fields Stepwise imports are read, every
 * other field skipped by its wire type. docs/import.md maps each to what it becomes.
 */

/** A histogram as HistogramProto holds it: bucket i counts the values up to bucketLimits[i]. */
export interface TbHistogram {
  min: number;
  max: number;
  num: number;
  sum: number;
  sumSquares: number;
  bucketLimits: number[];
  buckets: number[];
}

/** An hparams value: google.protobuf.Value's number, string or bool. */
export type HparamValue = number | string | boolean;

/** What one event holds, visited value by value; `wallTime` is epoch seconds. */
export interface EventVisitor {
  scalar(tag: string, step: number, wallTime: number, value: number): void;
  histogram(tag: string, step: number, wallTime: number, histogram: TbHistogram): void;
  image(tag: string, step: number, wallTime: number, encoded: Buffer): void;
  text(tag: string, step: number, wallTime: number, text: string): void;
  /** The hparams plugin's session start: the run's hyperparameters. */
  hparams(values: Map<string, HparamValue>): void;
  /** A value of a kind not imported (audio, PR curves, meshes, graphs...), by its plugin or field name. */
  notImported(kind: string): void;
}

// Field numbers, from event.proto, summary.proto and tensor.proto.
const EVENT_WALL_TIME = 1;
const EVENT_STEP = 2;
const EVENT_SUMMARY = 5;
const EVENT_GRAPH_DEF = 4;
const EVENT_META_GRAPH_DEF = 9;
const EVENT_RUN_METADATA = 8;
const SUMMARY_VALUE = 1;
const VALUE_TAG = 1;
const VALUE_SIMPLE = 2;
const VALUE_IMAGE = 4;
const VALUE_HISTO = 5;
const VALUE_AUDIO = 6;
const VALUE_TENSOR = 8;
const VALUE_METADATA = 9;
const METADATA_PLUGIN_DATA = 1;
const PLUGIN_NAME = 1;
const PLUGIN_CONTENT = 2;
const IMAGE_ENCODED = 4;

// TensorProto's fields and the DataType values read.
const TENSOR_DTYPE = 1;
const TENSOR_CONTENT = 4;
const TENSOR_FLOAT_VAL = 5;
const TENSOR_DOUBLE_VAL = 6;
const TENSOR_INT_VAL = 7;
const TENSOR_STRING_VAL = 8;
const TENSOR_INT64_VAL = 10;
const TENSOR_BOOL_VAL = 11;
const DT_FLOAT = 1;
const DT_DOUBLE = 2;
const DT_INT32 = 3;
const DT_STRING = 7;
const DT_INT64 = 9;
const DT_BOOL = 10;

/** Decodes one event, buf[start, end), visiting what it holds. Throws ProtobufError on malformed data. */
export function decodeEvent(buf: Buffer, visitor: EventVisitor, start = 0, end = buf.length): void {
  const event = new Cursor(buf, start, end);
  let wallTime = 0;
  let step = 0;
  let summary: { start: number; end: number } | undefined;
  while (event.pos < event.end) {
    const key = event.varint();
    const field = key >>> 3;
    const wire = key & 7;
    if (field === EVENT_WALL_TIME && wire === WIRE_FIXED64) wallTime = event.double();
    else if (field === EVENT_STEP && wire === 0) step = signed(event.varint());
    else if (field === EVENT_SUMMARY && wire === WIRE_BYTES) summary = event.bytes();
    else {
      if (field === EVENT_GRAPH_DEF || field === EVENT_META_GRAPH_DEF) visitor.notImported("graph");
      else if (field === EVENT_RUN_METADATA) visitor.notImported("run metadata");
      event.skip(wire);
    }
  }
  // The summary is read after the whole event: step and wall time may follow it on the wire.
  if (summary === undefined) return;
  const values = new Cursor(buf, summary.start, summary.end);
  while (values.pos < values.end) {
    const key = values.varint();
    if (key >>> 3 === SUMMARY_VALUE && (key & 7) === WIRE_BYTES) decodeValue(values.message(), step, wallTime, visitor);
    else values.skip(key & 7);
  }
}

/** int64 varints of negative numbers arrive as 2^64 − n. */
function signed(n: number): number {
  return n >= 2 ** 63 ? n - 2 ** 64 : n;
}

function decodeValue(value: Cursor, step: number, wallTime: number, visitor: EventVisitor): void {
  let tag = "";
  let simple: number | undefined;
  let plugin = "";
  let pluginContent: { start: number; end: number } | undefined;
  let tensor: Cursor | undefined;
  let image: Buffer | undefined;
  let histo: Cursor | undefined;
  let other: string | undefined;
  while (value.pos < value.end) {
    const key = value.varint();
    const field = key >>> 3;
    const wire = key & 7;
    if (field === VALUE_TAG && wire === WIRE_BYTES) tag = value.tag();
    else if (field === VALUE_SIMPLE && wire === WIRE_FIXED32) simple = value.float();
    else if (field === VALUE_METADATA && wire === WIRE_BYTES) {
      const metadata = value.message();
      while (metadata.pos < metadata.end) {
        const mkey = metadata.varint();
        if (mkey >>> 3 === METADATA_PLUGIN_DATA && (mkey & 7) === WIRE_BYTES) {
          const data = metadata.message();
          while (data.pos < data.end) {
            const dkey = data.varint();
            if (dkey >>> 3 === PLUGIN_NAME && (dkey & 7) === WIRE_BYTES) plugin = data.string();
            else if (dkey >>> 3 === PLUGIN_CONTENT && (dkey & 7) === WIRE_BYTES) pluginContent = data.bytes();
            else data.skip(dkey & 7);
          }
        } else metadata.skip(mkey & 7);
      }
    } else if (field === VALUE_TENSOR && wire === WIRE_BYTES) tensor = value.message();
    else if (field === VALUE_IMAGE && wire === WIRE_BYTES) {
      const img = value.message();
      while (img.pos < img.end) {
        const ikey = img.varint();
        if (ikey >>> 3 === IMAGE_ENCODED && (ikey & 7) === WIRE_BYTES) {
          const { start, end } = img.bytes();
          image = img.buf.subarray(start, end);
        } else img.skip(ikey & 7);
      }
    } else if (field === VALUE_HISTO && wire === WIRE_BYTES) histo = value.message();
    else {
      if (field === VALUE_AUDIO) other = "audio";
      value.skip(wire);
    }
  }

  if (simple !== undefined) visitor.scalar(tag, step, wallTime, simple);
  else if (histo) visitor.histogram(tag, step, wallTime, decodeHistogram(histo));
  else if (image) visitor.image(tag, step, wallTime, Buffer.from(image));
  else if (plugin === "hparams") {
    if (pluginContent) {
      const hparams = decodeSessionStart(new Cursor(value.buf, pluginContent.start, pluginContent.end));
      if (hparams) visitor.hparams(hparams);
    }
  } else if (tensor && (plugin === "scalars" || plugin === "")) {
    const number = tensorScalar(tensor);
    if (number !== undefined) visitor.scalar(tag, step, wallTime, number);
    else visitor.notImported(plugin === "" ? "tensor" : "scalars tensor that is not one number");
  } else if (tensor && plugin === "text") visitor.text(tag, step, wallTime, tensorStrings(tensor).join("\n"));
  else visitor.notImported(other ?? (plugin || "value without data"));
}

function decodeHistogram(histo: Cursor): TbHistogram {
  const h: TbHistogram = { min: 0, max: 0, num: 0, sum: 0, sumSquares: 0, bucketLimits: [], buckets: [] };
  while (histo.pos < histo.end) {
    const key = histo.varint();
    const wire = key & 7;
    switch (key >>> 3) {
      case 1:
        h.min = histo.double();
        break;
      case 2:
        h.max = histo.double();
        break;
      case 3:
        h.num = histo.double();
        break;
      case 4:
        h.sum = histo.double();
        break;
      case 5:
        h.sumSquares = histo.double();
        break;
      case 6:
        histo.doubles(wire, h.bucketLimits);
        break;
      case 7:
        histo.doubles(wire, h.buckets);
        break;
      default:
        histo.skip(wire);
    }
  }
  return h;
}

/** The one number a scalar tensor holds (TF2's tf.summary.scalar), or undefined when it is not one number. */
function tensorScalar(tensor: Cursor): number | undefined {
  let dtype = 0;
  const values: number[] = [];
  let content: { start: number; end: number } | undefined;
  while (tensor.pos < tensor.end) {
    const key = tensor.varint();
    const wire = key & 7;
    switch (key >>> 3) {
      case TENSOR_DTYPE:
        dtype = tensor.varint();
        break;
      case TENSOR_CONTENT:
        content = tensor.bytes();
        break;
      case TENSOR_FLOAT_VAL:
        tensor.floats(wire, values);
        break;
      case TENSOR_DOUBLE_VAL:
        tensor.doubles(wire, values);
        break;
      case TENSOR_INT_VAL:
      case TENSOR_INT64_VAL:
      case TENSOR_BOOL_VAL:
        tensor.varints(wire, values);
        break;
      default:
        tensor.skip(wire);
    }
  }
  if (content) {
    const { buf } = tensor;
    const size = content.end - content.start;
    if (dtype === DT_FLOAT && size === 4) return buf.readFloatLE(content.start);
    if (dtype === DT_DOUBLE && size === 8) return buf.readDoubleLE(content.start);
    if (dtype === DT_INT32 && size === 4) return buf.readInt32LE(content.start);
    if (dtype === DT_INT64 && size === 8) return Number(buf.readBigInt64LE(content.start));
    if (dtype === DT_BOOL && size === 1) return buf[content.start]!;
    return undefined;
  }
  if (values.length !== 1) return undefined;
  return dtype === DT_INT32 || dtype === DT_INT64 ? signed(values[0]!) : values[0]!;
}

function tensorStrings(tensor: Cursor): string[] {
  const strings: string[] = [];
  let dtype = DT_STRING;
  while (tensor.pos < tensor.end) {
    const key = tensor.varint();
    if (key >>> 3 === TENSOR_STRING_VAL && (key & 7) === WIRE_BYTES) strings.push(tensor.string());
    else if (key >>> 3 === TENSOR_DTYPE) dtype = tensor.varint();
    else tensor.skip(key & 7);
  }
  return dtype === DT_STRING ? strings : [];
}

/**
 * HParamsPluginData (plugin_hparams.proto): field 3 is SessionStartInfo, whose field 1 is
 * map<string, google.protobuf.Value> hparams. The experiment (field 2) and session end (4) are
 * not imported: the metric values they name are scalars of the run, imported as such.
 */
function decodeSessionStart(content: Cursor): Map<string, HparamValue> | undefined {
  let result: Map<string, HparamValue> | undefined;
  while (content.pos < content.end) {
    const key = content.varint();
    if (key >>> 3 !== 3 || (key & 7) !== WIRE_BYTES) {
      content.skip(key & 7);
      continue;
    }
    result = new Map();
    const start = content.message();
    while (start.pos < start.end) {
      const skey = start.varint();
      if (skey >>> 3 !== 1 || (skey & 7) !== WIRE_BYTES) {
        start.skip(skey & 7);
        continue;
      }
      const entry = start.message();
      let name = "";
      let parsed: HparamValue | undefined;
      while (entry.pos < entry.end) {
        const ekey = entry.varint();
        if (ekey >>> 3 === 1 && (ekey & 7) === WIRE_BYTES) name = entry.string();
        else if (ekey >>> 3 === 2 && (ekey & 7) === WIRE_BYTES) parsed = protobufValue(entry.message());
        else entry.skip(ekey & 7);
      }
      if (parsed !== undefined) result.set(name, parsed);
    }
  }
  return result;
}

/** google.protobuf.Value: number (2), string (3) or bool (4); lists and structs are not hyperparameters TensorBoard shows. */
function protobufValue(value: Cursor): HparamValue | undefined {
  let parsed: HparamValue | undefined;
  while (value.pos < value.end) {
    const key = value.varint();
    const field = key >>> 3;
    const wire = key & 7;
    if (field === 2 && wire === WIRE_FIXED64) parsed = value.double();
    else if (field === 3 && wire === WIRE_BYTES) parsed = value.string();
    else if (field === 4 && wire === 0) parsed = value.varint() !== 0;
    else value.skip(wire);
  }
  return parsed;
}
