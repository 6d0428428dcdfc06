// The Models pages: the organization's registered models (MLflow's registry), and one model with its versions.

import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorNote, Loading, PageTitle, Pager, TimeAgo } from "../components/common.tsx";
import { KeyValues, VersionsTable } from "../components/models.tsx";
import { useServerState } from "../hooks.ts";
import { Link, modelPath, modelsPath, setQuery, useLocation } from "../router.tsx";

const PAGE_SIZE = 50;

const offsetOf = (query: URLSearchParams) => Number(query.get("offset") ?? 0) || 0;

export function ModelsPage() {
  const { query } = useLocation();
  const search = query.get("search") ?? "";
  const offset = offsetOf(query);
  const [searchText, setSearchText] = useState(search);
  useEffect(() => setSearchText(search), [search]);
  const models = useServerState(["models", search, offset], () => api.models({ search, limit: PAGE_SIZE, offset }));
  return (
    <section>
      <PageTitle title="Models" />
      <form
        class="toolbar"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ search: searchText, offset: undefined });
        }}
      >
        <label>
          Name
          <input
            type="search"
            placeholder="Search names"
            value={searchText}
            onInput={(event) => setSearchText(event.currentTarget.value)}
          />
        </label>
      </form>
      <ErrorNote error={models.error} />
      {models.loading && !models.data && <Loading what="models" />}
      {models.data && models.data.total === 0 && (
        <p class="muted">
          {search ? "No models match." : "No registered models yet: register one with MLflow's client and it appears here."}
        </p>
      )}
      {models.data && models.data.models.length > 0 && (
        <>
          <div class="table-scroll">
            <table class="data-table" data-testid="models-table">
              <thead>
                <tr>
                  <th scope="col">Model</th>
                  <th scope="col" class="number">
                    Latest version
                  </th>
                  <th scope="col" class="number">
                    Versions
                  </th>
                  <th scope="col">Aliases</th>
                  <th scope="col">Tags</th>
                  <th scope="col">Description</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {models.data.models.map((model) => (
                  <tr key={model.name}>
                    <td>
                      <Link href={modelPath(model.name)}>{model.name}</Link>
                    </td>
                    <td class="number">{model.latestVersion ?? "–"}</td>
                    <td class="number">{model.versionCount.toLocaleString("en-US")}</td>
                    <td>
                      {model.aliases.map(({ alias, version }) => (
                        <span class="tag" key={alias}>
                          @{alias}: v{version}
                        </span>
                      ))}
                    </td>
                    <td>
                      <div class="tags-cell">
                        <KeyValues pairs={model.tags} />
                      </div>
                    </td>
                    <td>{model.description}</td>
                    <td>
                      <TimeAgo iso={model.updatedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            offset={offset}
            limit={PAGE_SIZE}
            total={models.data.total}
            label="models"
            onOffset={(next) => setQuery({ offset: next || undefined })}
          />
        </>
      )}
    </section>
  );
}

export function ModelPage({ name }: { name: string }) {
  const { query } = useLocation();
  const offset = offsetOf(query);
  const model = useServerState(["model", name, offset], () => api.model(name, { limit: PAGE_SIZE, offset }));
  if (model.error) return <ErrorNote error={model.error} />;
  if (!model.data) return <Loading what={`model ${name}`} />;
  const { model: summary, versions } = model.data;
  return (
    <section>
      <p class="breadcrumbs">
        <Link href={modelsPath}>Models</Link> /
      </p>
      <PageTitle title={summary.name} />
      <div class="run-header">
        <dl class="facts" data-testid="model-facts">
          <div>
            <dt>Description</dt>
            <dd>{summary.description || <span class="muted">–</span>}</dd>
          </div>
          <div>
            <dt>Aliases</dt>
            <dd>
              {summary.aliases.length === 0 && <span class="muted">–</span>}
              {summary.aliases.map(({ alias, version }) => (
                <span class="tag" key={alias}>
                  @{alias}: v{version}
                </span>
              ))}
            </dd>
          </div>
          <div>
            <dt>Tags</dt>
            <dd>
              <KeyValues pairs={summary.tags} />
            </dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>
              <TimeAgo iso={summary.createdAt} />
            </dd>
          </div>
          <div>
            <dt>Updated</dt>
            <dd>
              <TimeAgo iso={summary.updatedAt} />
            </dd>
          </div>
        </dl>
      </div>
      <h2>Versions</h2>
      {summary.versionCount === 0 ? (
        <p class="muted">No versions yet.</p>
      ) : (
        <>
          <VersionsTable versions={versions} />
          <Pager
            offset={offset}
            limit={PAGE_SIZE}
            total={summary.versionCount}
            label="versions"
            onOffset={(next) => setQuery({ offset: next || undefined })}
          />
        </>
      )}
    </section>
  );
}
