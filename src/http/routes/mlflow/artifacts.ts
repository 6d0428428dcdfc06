import type { FastifyInstance, FastifyRequest } from "fastify";
import { Readable } from "node:stream";
import type { AppDeps } from "../../deps.js";
import { UploadRecorder } from "../../../services/file-uploads.js";
import { BlobTooLargeError, type BlobRef } from "../../../blobs/blob-store.js";
import { DomainError } from "../../../domain/errors.js";
import { checkFileName, contentTypeOfFile } from "../../../domain/files.js";
import { doesNotExist, invalidParameter } from "../../../domain/mlflow/errors.js";
import { parseArtifactPath, listDirectory, ARTIFACT_LOG_NAME, normalizeArtifactPath } from "../../../domain/mlflow/artifacts.js";
import { artifactUri } from "../../../domain/mlflow/model.js";
import { checkActive, findRun } from "../../../services/mlflow.js";
import type { Run, StoredFile } from "../../../store/store.js";
import { fieldsOf, optionalString, runIdOf } from "./common.js";

const HIDDEN = { schema: { hide: true } };

const refOf = (file: StoredFile): BlobRef => ({ orgId: file.orgId, projectId: file.projectId, runId: file.runId, fileId: file.id });

/**
 * MLflow's artifacts: `artifacts/list` of the tracking API, and the artifact proxy
 * (`/api/2.0/mlflow-artifacts/artifacts/<experiment>/<run>/artifacts/<path>`) that uploads, downloads,
 * lists and deletes them. An artifact is a Stepwise file of its run (log name `mlflow-artifacts`,
 * file name its path), so it shows in the UI; its bytes stream into the BlobStore (local or S3).
 */
export function artifactRoutes({ store, blobs, clock, config }: AppDeps) {
  const uploads = new UploadRecorder(store, blobs);
  async function artifactFiles(orgId: string, run: Run): Promise<StoredFile[]> {
    return store.listFiles(orgId, run.id, { logName: ARTIFACT_LOG_NAME });
  }

  /** The run a proxy path names, in the caller's organization (another organization's run does not exist). */
  async function runOfPath(request: FastifyRequest, path: string) {
    const parsed = parseArtifactPath(path);
    const run = await findRun(store, request.auth.orgId, parsed.runId);
    if (String(run.projectId) !== parsed.experimentId) throw doesNotExist(`Run with id=${parsed.runId} not found`);
    return { run, relative: parsed.relative };
  }

  const tracking = async (app: FastifyInstance) => {
    app.get("/artifacts/list", HIDDEN, async (request) => {
      const fields = fieldsOf(request);
      const run = await findRun(store, request.auth.orgId, runIdOf(fields));
      const path = normalizeArtifactPath(optionalString(fields, "path") ?? "");
      const files = listDirectory(await artifactFiles(request.auth.orgId, run), path).map((entry) => ({
        path: path === "" ? entry.name : `${path}/${entry.name}`,
        is_dir: entry.isDir,
        ...(entry.isDir ? {} : { file_size: entry.size }),
      }));
      return { root_uri: artifactUri(run.projectId, run.mlflowId), files };
    });
  };

  const proxy = async (app: FastifyInstance) => {
    // Uploads are streamed to the blob store as they arrive, whatever their content type.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", (_request, payload, done) => done(null, payload));

    app.get("/artifacts", HIDDEN, async (request) => {
      const path = optionalString(fieldsOf(request), "path") ?? "";
      const { run, relative } = await runOfPath(request, path);
      const files = listDirectory(await artifactFiles(request.auth.orgId, run), relative).map((entry) => ({
        path: entry.name,
        is_dir: entry.isDir,
        ...(entry.isDir ? {} : { file_size: entry.size }),
      }));
      return { files };
    });

    app.put("/artifacts/*", HIDDEN, async (request, reply) => {
      const { run, relative } = await runOfPath(request, (request.params as { "*": string })["*"]);
      checkActive(run);
      if (relative === "") throw invalidParameter("An artifact path must name a file");
      try {
        checkFileName(relative, "path");
      } catch (error) {
        throw error instanceof DomainError ? invalidParameter(error.message) : error;
      }
      const declared = Number(request.headers["content-length"] ?? 0);
      if (declared > config.maxUploadBytes) {
        reply.header("connection", "close");
        throw new DomainError("PAYLOAD_TOO_LARGE", new BlobTooLargeError(config.maxUploadBytes).message);
      }
      const orgId = request.auth.orgId;
      const now = clock.now();
      const extension = /\.([A-Za-z0-9]{1,16})$/.exec(relative)?.[1]?.toLowerCase() ?? "bin";
      const [file] =
        (await store.registerFiles(
          orgId,
          run.id,
          [{ logName: ARTIFACT_LOG_NAME, fileName: relative, fileType: extension, fileSize: declared, time: now, step: 0 }],
          now,
        )) ?? [];
      if (!file) throw doesNotExist(`Run with id=${run.mlflowId} not found`);
      const body = (request.body as Readable | undefined) ?? Readable.from([]);
      try {
        await blobs.write(refOf(file), body, config.maxUploadBytes);
      } catch (error) {
        if (error instanceof BlobTooLargeError) throw new DomainError("PAYLOAD_TOO_LARGE", error.message);
        throw error;
      }
      await uploads.record(file.id, refOf(file), clock.now());
      return {};
    });

    app.get("/artifacts/*", HIDDEN, async (request, reply) => {
      const { run, relative } = await runOfPath(request, (request.params as { "*": string })["*"]);
      const file = (await artifactFiles(request.auth.orgId, run)).find((f) => f.fileName === relative);
      const blob = file && (await blobs.read(refOf(file)));
      if (!file || !blob) throw doesNotExist(`Artifact '${relative}' not found`);
      reply.header("content-length", String(blob.size));
      reply.header("content-type", contentTypeOfFile(file.fileType, file.fileName));
      reply.header("content-disposition", "attachment");
      return reply.send(blob.stream);
    });

    app.delete("/artifacts/*", HIDDEN, async (request) => {
      const { run, relative } = await runOfPath(request, (request.params as { "*": string })["*"]);
      checkActive(run);
      // Deleting a directory deletes what is under it, as MLflow's proxy does.
      const files = (await artifactFiles(request.auth.orgId, run)).filter(
        (f) => f.fileName === relative || relative === "" || f.fileName.startsWith(`${relative}/`),
      );
      if (files.length === 0) throw doesNotExist(`Artifact '${relative}' not found`);
      for (const file of files) {
        await store.deleteFile(request.auth.orgId, file.id);
        await blobs.delete(refOf(file));
      }
      return {};
    });
  };

  return { tracking, proxy };
}
