import { Type } from "typebox";
import { CONSOLE_LOG_TYPES } from "../../domain/console-logs.js";
import { READ_PAGE_BYTES } from "../../domain/paging.js";
import { LogName, ProjectName, RunId, Timestamp } from "./common.js";

const NextOffset = Type.Union([Type.Integer(), Type.Null()], {
  description: `The offset of the next page, null after the last one. A page ends at limit rows or before ${READ_PAGE_BYTES} bytes of text, whichever comes first, and holds at least one row.`,
});

export const LogsQuery = Type.Object({
  runId: RunId,
  projectName: ProjectName,
  logType: Type.Optional(
    Type.String({ description: `One of ${CONSOLE_LOG_TYPES.join(", ")}, in any case (error, Error and ERROR are one).` }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 }),
  offset: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
});

export const LogsResponse = Type.Object({
  logs: Type.Array(
    Type.Object({
      time: Timestamp,
      logType: Type.String(),
      lineNumber: Type.Integer(),
      message: Type.String(),
      step: Type.Union([Type.Integer(), Type.Null()]),
    }),
  ),
  total: Type.Integer({ description: "All matching lines, ignoring limit and offset." }),
  nextOffset: NextOffset,
});

export const DataQuery = Type.Object({
  runId: RunId,
  projectName: ProjectName,
  logName: Type.Optional(LogName),
  limit: Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 }),
  offset: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
});

export const DataResponse = Type.Object({
  rows: Type.Array(
    Type.Object({
      logName: Type.String(),
      logGroup: Type.String(),
      dataType: Type.String(),
      step: Type.Integer(),
      time: Timestamp,
      data: Type.String(),
    }),
  ),
  nextOffset: NextOffset,
});
