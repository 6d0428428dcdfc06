import { Type } from "typebox";
import { EpochMs, LogName, Nullable, RunLogsQuery, Step, Timestamp } from "./common.js";

export const RegisterFilesBody = Type.Object({
  files: Type.Array(
    Type.Object({
      fileName: Type.String({ minLength: 1, maxLength: 255, description: "A label, not a path: no '..', no absolute paths." }),
      fileSize: Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description: "Declared size; replaced by the uploaded size.",
      }),
      fileType: Type.String({ maxLength: 255, description: 'Extension or media type (png, image/png, mask, "").' }),
      time: EpochMs,
      step: Step,
      logName: LogName,
      sampleIndex: Nullable(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
      caption: Nullable(Type.String({ maxLength: 10_000 })),
      annotations: Nullable(Type.String({ maxLength: 1_000_000 })),
    }),
    { minItems: 1, maxItems: 10_000 },
  ),
});

export const RegisterFilesResponse = Type.Record(Type.String(), Type.Array(Type.Record(Type.String(), Type.String())), {
  description: "{<logName>: [{<fileName>: <signed upload URL, valid 1 hour>}]}",
});

export const FilesQuery = Type.Object(RunLogsQuery);

export const FilesResponse = Type.Object({
  files: Type.Array(
    Type.Object({
      fileName: Type.String(),
      fileType: Type.String(),
      fileSize: Type.Integer(),
      logName: Type.String(),
      logGroup: Type.String(),
      time: Timestamp,
      step: Type.Integer(),
      sampleIndex: Type.Union([Type.Integer(), Type.Null()]),
      url: Type.String({ description: "Signed download URL, valid 5 days." }),
      caption: Type.Optional(Type.String()),
      annotations: Type.Optional(Type.String()),
    }),
  ),
});

export const SignedFileParams = Type.Object({ fileId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
export const SignedDownloadParams = Type.Object({
  fileId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  fileName: Type.String(),
});
export const SignatureQuery = Type.Object({
  expires: Type.Optional(Type.String({ description: "Expiry, epoch ms." })),
  key: Type.Optional(
    Type.String({ maxLength: 64, description: "ID of the API key that minted the URL; the URL stops working when that key is revoked." }),
  ),
  sig: Type.Optional(Type.String({ description: "HMAC-SHA256 signature, base64url." })),
});
