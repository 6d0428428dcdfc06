import type { FastifyInstance, FastifyRequest } from "fastify";
import type { RouteDeps } from "../../deps.js";
import { doesNotExist, inMlflowTerms, invalidParameter } from "../../../domain/mlflow/errors.js";
import {
  artifactFile,
  parseArtifactPath,
  listDirectory,
  ARTIFACT_LOG_NAME,
  normalizeArtifactPath,
} from "../../../domain/mlflow/artifacts.js";
import { experimentIdOf, namesProject } from "../../../domain/mlflow/ids.js";
import { artifactUri } from "../../../domain/mlflow/model.js";
import { checkFileName } from "../../../domain/files.js";
import { refuseDeclaredOversize, sendFile, uploadBody } from "../../file-transfer.js";
import { checkActive, findRun } from "../../../services/mlflow.js";
import type { MlflowRun, StoredFile } from "../../../store/store.js";
import { fieldsOf, optionalString, runIdOf } from "./common.js";

const HIDDEN = { schema: { hide: true } };

/**
 * MLflow's artifacts: `artifacts/list` of the tracking API, and the artifact proxy
 * (`/api/2.0/mlflow-artifacts/artifacts/<experiment>/<run>/artifacts/<path>`) that uploads, downloads,
 * lists and deletes them. An artifact is a Stepwise file of its run (log name `mlflow-artifacts`,
 * file name its path), so it shows in the UI; its bytes stream into the BlobStore (local or S3).
 */
export function artifactRoutes({ store, clock, services: { files: fileService } }: RouteDeps) {
  async function artifactFiles(orgId: string, run: MlflowRun): Promise<StoredFile[]> {
    return store.listFiles(orgId, run.id, { logName: ARTIFACT_LOG_NAME });
  }

  /** The run a proxy path names, in the caller's organization (another organization's run does not exist). */
  async function runOfPath(request: FastifyRequest, path: string) {
    const parsed = parseArtifactPath(path);
    const run = await findRun(store, request.auth.orgId, parsed.runId);
    if (!namesProject(parsed.experimentId, run.projectId, run.inDefaultExperiment))
      throw doesNotExist(`Run with id=${parsed.runId} not found`);
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
      return { root_uri: artifactUri(experimentIdOf(run.projectId, run.inDefaultExperiment), run.mlflowId), files };
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
      inMlflowTerms(() => checkFileName(relative, "path"));
      const declared = refuseDeclaredOversize(request, reply, fileService);
      const now = clock.now();
      const [file] =
        (await fileService.register(request.auth.orgId, run.id, [artifactFile(relative, declared, now)], () => "path", now)) ?? [];
      if (!file) throw doesNotExist(`Run with id=${run.mlflowId} not found`);
      await fileService.receive(file, uploadBody(request));
      return {};
    });

    app.get("/artifacts/*", HIDDEN, async (request, reply) => {
      const { run, relative } = await runOfPath(request, (request.params as { "*": string })["*"]);
      const file = (await artifactFiles(request.auth.orgId, run)).find((f) => f.fileName === relative);
      const download = file && (await fileService.open(file));
      if (!download) throw doesNotExist(`Artifact '${relative}' not found`);
      return sendFile(reply, download, { contentDisposition: "attachment" });
    });

    app.delete("/artifacts/*", HIDDEN, async (request) => {
      const { run, relative } = await runOfPath(request, (request.params as { "*": string })["*"]);
      checkActive(run);
      // Deleting a directory deletes what is under it, as MLflow's proxy does.
      const files = (await artifactFiles(request.auth.orgId, run)).filter(
        (f) => f.fileName === relative || relative === "" || f.fileName.startsWith(`${relative}/`),
      );
      if (files.length === 0) throw doesNotExist(`Artifact '${relative}' not found`);
      for (const file of files) await fileService.delete(request.auth.orgId, file);
      return {};
    });
  };

  return { tracking, proxy };
}
