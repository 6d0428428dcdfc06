import { Type, type Static, type TSchema } from "typebox";
import { NAME_LIMITS } from "../../domain/names.js";
import { RUN_STATUSES } from "../../domain/status.js";
import { MAX_EPOCH_MS } from "../../domain/time.js";

/**
 * An optional field that also accepts JSON null (existing clients send null for "not given").
 * Written as a type array rather than anyOf: Ajv's type coercion would turn null into "" or 0
 * inside an anyOf branch.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const { type } = schema as unknown as { type: string };
  return Type.Optional(Type.Unsafe<Static<T> | null>({ ...schema, type: [type, "null"] }));
}

/** Epoch milliseconds in the range JavaScript dates allow (docs/semantics.md, Runs: limits). */
export const EpochMs = Type.Integer({ minimum: 0, maximum: MAX_EPOCH_MS });
export const RunId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: "Numeric run ID." });
export const Step = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
export const RunStatus = Type.Enum(RUN_STATUSES);
export const Timestamp = Type.String({ format: "date-time", description: "ISO-8601 UTC with milliseconds." });
/**
 * A type array rather than anyOf: the response serializer picks anyOf branches by validating them,
 * and the ISO form of the latest instant docs/semantics.md (Runs: limits) allows (`+275760-09-13T00:00:00.000Z`) fails the
 * date-time format, which turned such a read into a 500.
 */
export const NullableTimestamp = Type.Unsafe<string | null>({ ...Timestamp, type: ["string", "null"] });
/** Any JSON value, as stored for config, metadata and settings. */
export const AnyJson = Type.Unsafe<unknown>({ description: "Any JSON value." });
export const JsonText = Type.String({
  maxLength: 1_000_000,
  description: 'JSON text; "null" or "" means absent.',
  examples: ['{"lr": 0.001, "model": {"layers": 12}}'],
});
export const ProjectName = Type.String({ minLength: 1, maxLength: NAME_LIMITS.projectName });
/** A metric, data or file log name. */
export const LogName = Type.String({ minLength: 1, maxLength: 255 });
/** The query of reads over one run's logs, all of them or one name or one group (metrics, statistics, files). */
export const RunLogsQuery = {
  runId: RunId,
  projectName: ProjectName,
  logName: Type.Optional(LogName),
  logGroup: Type.Optional(Type.String({ maxLength: 255 })),
};
export const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 50 });

export const ErrorResponse = Type.Object({ error: Type.String() }, { description: "Every error has this body." });
export const SuccessResponse = Type.Object({ success: Type.Boolean() });

export const RunIdBody = Type.Object({ runId: RunId });
export const RunIdQuery = Type.Object({ runId: RunId });

/** The error responses every authenticated route can give, for the OpenAPI document. */
export const STANDARD_ERRORS = {
  400: ErrorResponse,
  401: ErrorResponse,
  404: ErrorResponse,
};
