import { api } from "../../api.ts";
import { useServerState } from "../../hooks.ts";
import { ErrorNote, Loading, TimeAgo } from "../common.tsx";
import { KeyValues, VersionsTable } from "../models.tsx";

/** What a run made: its MLflow 3 logged models, and the registered model versions whose run it is. */
export function RunModels({ runId }: { runId: number }) {
  const models = useServerState(["modelsOfRun", runId], () => api.modelsOfRun(runId));
  if (models.error) return <ErrorNote error={models.error} />;
  if (!models.data) return <Loading what="models" />;
  const { loggedModels, versions } = models.data;
  return (
    <div data-testid="run-models">
      <h2>Logged models</h2>
      {loggedModels.length === 0 ? (
        <p class="muted">The run logged no models.</p>
      ) : (
        <div class="table-scroll">
          <table class="data-table" data-testid="logged-models">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Model ID</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Params</th>
                <th scope="col">Tags</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {loggedModels.map((model) => (
                <tr key={model.modelId}>
                  <td>{model.name}</td>
                  <td class="mono">{model.modelId}</td>
                  <td>{model.modelType ?? <span class="muted">–</span>}</td>
                  <td>{model.status}</td>
                  <td>
                    <div class="tags-cell">
                      <KeyValues pairs={model.params} />
                    </div>
                  </td>
                  <td>
                    <div class="tags-cell">
                      <KeyValues pairs={model.tags} />
                    </div>
                  </td>
                  <td>
                    <TimeAgo iso={model.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Registered versions</h2>
      {versions.length === 0 ? (
        <p class="muted">No model version was registered from the run.</p>
      ) : (
        <VersionsTable versions={versions} withModel />
      )}
    </div>
  );
}
