import { open, rename, rm, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ParquetWriter, fileWriter } from "hyparquet-writer";
import { type Cell, type Column, type ColumnType, csvCell, csvText } from "../domain/export-table.js";

/** Columns of one batch of rows: `columns[i]` holds the i-th column's values, all of one length. */
export type ColumnBatch = ArrayLike<Cell>[];

/**
 * A table written to a file in batches. Nothing is at the file's name until `finish`: the rows go
 * to a hidden partial file beside it, renamed over the name once whole, so an interrupted export
 * leaves the previous file (or none), never half of one. `abort` removes the partial file.
 */
export interface TableWriter {
  write(batch: ColumnBatch): Promise<void>;
  finish(): Promise<void>;
  abort(): Promise<void>;
}

export type ExportFormat = "csv" | "parquet";

export function partialPathOf(path: string): string {
  return join(dirname(path), `.${basename(path)}.partial`);
}

export async function openTableWriter(format: ExportFormat, path: string, columns: Column[]): Promise<TableWriter> {
  return format === "csv" ? CsvTableWriter.open(path, columns) : new ParquetTableWriter(path, columns);
}

class CsvTableWriter implements TableWriter {
  private constructor(
    private readonly path: string,
    private readonly columns: Column[],
    private readonly file: FileHandle,
  ) {}

  static async open(path: string, columns: Column[]): Promise<CsvTableWriter> {
    const file = await open(partialPathOf(path), "w");
    await file.write(`${columns.map((column) => csvText(column.name)).join(",")}\n`);
    return new CsvTableWriter(path, columns, file);
  }

  async write(batch: ColumnBatch): Promise<void> {
    const rows = batch[0]?.length ?? 0;
    const types = this.columns.map((column) => column.type);
    let text = "";
    for (let row = 0; row < rows; row++) {
      for (let c = 0; c < batch.length; c++) {
        if (c > 0) text += ",";
        text += csvCell(batch[c]![row]!, types[c]!);
      }
      text += "\n";
      if (text.length > 1 << 20) {
        await this.file.write(text);
        text = "";
      }
    }
    if (text !== "") await this.file.write(text);
  }

  async finish(): Promise<void> {
    await this.file.sync();
    await this.file.close();
    await rename(partialPathOf(this.path), this.path);
  }

  async abort(): Promise<void> {
    await this.file.close().catch(() => undefined);
    await rm(partialPathOf(this.path), { force: true });
  }
}

/** Parquet types of the columns: int64 and timestamps (ms since the epoch, UTC) as INT64, doubles as DOUBLE. */
const PARQUET_TYPES: Record<
  ColumnType,
  { type: "INT64" | "DOUBLE" | "BYTE_ARRAY" | "BOOLEAN"; converted_type?: "UTF8" | "TIMESTAMP_MILLIS" }
> = {
  int64: { type: "INT64" },
  double: { type: "DOUBLE" },
  string: { type: "BYTE_ARRAY", converted_type: "UTF8" },
  boolean: { type: "BOOLEAN" },
  timestamp: { type: "INT64", converted_type: "TIMESTAMP_MILLIS" },
};

/** Parquet through hyparquet-writer (docs/decisions.md, Export): one row group per batch, snappy-compressed. */
class ParquetTableWriter implements TableWriter {
  private readonly writer: ParquetWriter;

  constructor(
    private readonly path: string,
    private readonly columns: Column[],
  ) {
    this.writer = new ParquetWriter({
      writer: fileWriter(partialPathOf(path)),
      schema: [
        { name: "root", num_children: columns.length },
        ...columns.map((column) => ({ name: column.name, repetition_type: "OPTIONAL" as const, ...PARQUET_TYPES[column.type] })),
      ],
      createdBy: "stepwise export",
    });
  }

  async write(batch: ColumnBatch): Promise<void> {
    const rows = batch[0]?.length ?? 0;
    if (rows === 0) return;
    await this.writer.write({
      columnData: this.columns.map((column, c) => ({ name: column.name, data: parquetValues(batch[c]!, column.type) })),
      rowGroupSize: rows,
    });
  }

  async finish(): Promise<void> {
    this.writer.finish();
    const file = await open(partialPathOf(this.path), "r+");
    await file.sync();
    await file.close();
    await rename(partialPathOf(this.path), this.path);
  }

  async abort(): Promise<void> {
    await rm(partialPathOf(this.path), { force: true });
  }
}

/** INT64 columns take bigints (nulls stay null); the others their values as they are. */
function parquetValues(values: ArrayLike<Cell>, type: ColumnType): unknown[] {
  if (type !== "int64" && type !== "timestamp") return Array.from(values);
  const out = new Array<bigint | null>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    out[i] = typeof value === "number" ? BigInt(value) : null;
  }
  return out;
}
