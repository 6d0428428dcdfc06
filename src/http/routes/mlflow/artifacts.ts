import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { RouteDeps } from "../../deps.js";
import { doesNotExist, inMlflowTerms, invalidParameter } from "../../../domain/mlflow/errors.js";
import {
  artifactFile,
  parseArtifactPath,
  listDirectory,
  ARTIFACT_LOG_NAME,
  MODEL_ARTIFACT_LOG_NAME,
  normalizeArtifactPath,
  parseModelArtifactPath,
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
 * lists and deletes them; and a logged model's files (`<experiment>/models/<model id>/artifacts/<path>`,
 * MLflow 3). An artifact is a Stepwise file of its run (log name `mlflow-artifacts`,
 * file name its path), so it shows in the UI; its bytes stream into the BlobStore (local or S3).
 */
export function artifactRoutes({ store, clock, services: { files: fileService, mlflowLoggedModels: loggedModels } }: RouteDeps) {
  async function artifactFiles(orgId: string, run: MlflowRun): Promise<StoredFile[]> {
    return store.listFiles(orgId, run.id, { logName: ARTIFACT_LOG_NAME });
  }

  /**
   * Where a proxy path's files are, in the caller's organization (another organization's run or model
   * does not exist): a run's artifacts, or a logged model's files (files of its source run under
   * MODEL_ARTIFACT_LOG_NAME, named `<model id>/<path>`). `files` are the location's files with
   * their names relative to its root.
   */
  async function locationOf(request: FastifyRequest, path: string) {
    const orgId = request.auth.orgId;
    const model = parseModelArtifactPath(path);
    if (model) {
      const found = await loggedModels.find(orgId, model.modelId, true);
      if (found.experimentId !== model.experimentId) throw doesNotExist(`Logged model with ID '${model.modelId}' not found.`);
      const prefix = `${found.id}/`;
      const runId = found.sourceRunId;
      return {
        relative: model.relative,
        files: async () =>
          runId === null
            ? []
            : (await store.listFiles(orgId, runId, { logName: MODEL_ARTIFACT_LOG_NAME }))
                .filter((f) => f.fileName.startsWith(prefix))
                .map((f) => ({ file: f, fileName: f.fileName.slice(prefix.length), fileSize: f.fileSize })),
        writable: () => {
          if (runId === null)
            throw invalidParameter(
              `Logged model ${found.id} has no source run: Stepwise stores a model's files with the run that logged it (log the model inside a run)`,
            );
          return { runId, logName: MODEL_ARTIFACT_LOG_NAME, fileName: (relative: string) => `${prefix}${relative}`, missing: found.id };
        },
      };
    }
    const parsed = parseArtifactPath(path);
    const run = await findRun(store, orgId, parsed.runId);
    if (!namesProject(parsed.experimentId, run.projectId, run.inDefaultExperiment))
      throw doesNotExist(`Run with id=${parsed.runId} not found`);
    return {
      relative: parsed.relative,
      files: async () => (await artifactFiles(orgId, run)).map((f) => ({ file: f, fileName: f.fileName, fileSize: f.fileSize })),
      writable: () => {
        checkActive(run);
        return { runId: run.id, logName: ARTIFACT_LOG_NAME, fileName: (relative: string) => relative, missing: run.mlflowId };
      },
    };
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

    // A logged model's files: listed (MLflow's listLoggedModelArtifacts) and downloaded (its UI's route).
    app.get("/logged-models/:model_id/artifacts/directories", HIDDEN, async (request) => {
      const model = await loggedModels.find(request.auth.orgId, (request.params as { model_id: string }).model_id);
      const path = normalizeArtifactPath(optionalString(fieldsOf(request), "artifact_directory_path") ?? "");
      const { files } = await locationOf(request, `${model.experimentId}/models/${model.id}/artifacts`);
      const listed = listDirectory(await files(), path).map((entry) => ({
        path: path === "" ? entry.name : `${path}/${entry.name}`,
        is_dir: entry.isDir,
        ...(entry.isDir ? {} : { file_size: entry.size }),
      }));
      return { root_uri: model.artifactUri, ...(listed.length > 0 ? { files: listed } : {}) };
    });

    app.get("/logged-models/:model_id/artifacts/files", HIDDEN, async (request, reply) => {
      const model = await loggedModels.find(request.auth.orgId, (request.params as { model_id: string }).model_id);
      const path = optionalString(fieldsOf(request), "artifact_file_path");
      if (!path) throw invalidParameter('Request must include the "artifact_file_path" query parameter.');
      const relative = normalizeArtifactPath(path);
      const { files } = await locationOf(request, `${model.experimentId}/models/${model.id}/artifacts`);
      return download(reply, (await files()).find((f) => f.fileName === relative)?.file, relative);
    });
  };

  async function download(reply: FastifyReply, file: StoredFile | undefined, relative: string) {
    const opened = file && (await fileService.open(file));
    if (!opened) throw doesNotExist(`Artifact '${relative}' not found`);
    return sendFile(reply, opened, { contentDisposition: "attachment" });
  }

  const proxy = async (app: FastifyInstance) => {
    // Uploads are streamed to the blob store as they arrive, whatever their content type.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", (_request, payload, done) => done(null, payload));

    app.get("/artifacts", HIDDEN, async (request) => {
      const path = optionalString(fieldsOf(request), "path") ?? "";
      const { files, relative } = await locationOf(request, path);
      const listed = listDirectory(await files(), relative).map((entry) => ({
        path: entry.name,
        is_dir: entry.isDir,
        ...(entry.isDir ? {} : { file_size: entry.size }),
      }));
      return { files: listed };
    });

    app.put("/artifacts/*", HIDDEN, async (request, reply) => {
      const location = await locationOf(request, (request.params as { "*": string })["*"]);
      const target = location.writable();
      const { relative } = location;
      if (relative === "") throw invalidParameter("An artifact path must name a file");
      inMlflowTerms(() => checkFileName(relative, "path"));
      const declared = refuseDeclaredOversize(request, reply, fileService);
      const now = clock.now();
      const [file] =
        (await fileService.register(
          request.auth.orgId,
          target.runId,
          [artifactFile(target.fileName(relative), declared, now, target.logName)],
          () => "path",
          now,
        )) ?? [];
      if (!file) throw doesNotExist(`Run with id=${target.missing} not found`);
      await fileService.receive(file, uploadBody(request));
      return {};
    });

    app.get("/artifacts/*", HIDDEN, async (request, reply) => {
      const { files, relative } = await locationOf(request, (request.params as { "*": string })["*"]);
      return download(reply, (await files()).find((f) => f.fileName === relative)?.file, relative);
    });

    app.delete("/artifacts/*", HIDDEN, async (request) => {
      const location = await locationOf(request, (request.params as { "*": string })["*"]);
      location.writable();
      const { relative } = location;
      // Deleting a directory deletes what is under it, as MLflow's proxy does.
      const files = (await location.files()).filter(
        (f) => f.fileName === relative || relative === "" || f.fileName.startsWith(`${relative}/`),
      );
      if (files.length === 0) throw doesNotExist(`Artifact '${relative}' not found`);
      for (const { file } of files) await fileService.delete(request.auth.orgId, file);
      return {};
    });
  };

  return { tracking, proxy };
}
