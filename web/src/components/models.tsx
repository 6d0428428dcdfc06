// Pieces of the Models pages and of the run page's Models tab: key-value tags and a versions table.

import { Link, modelPath, runPath } from "../router.tsx";
import type { ModelVersion } from "../types.ts";
import { TimeAgo } from "./common.tsx";

/** Key-value tags as chips, `key=value`. */
export function KeyValues({ pairs }: { pairs: { key: string; value: string }[] }) {
  if (pairs.length === 0) return <span class="muted">–</span>;
  return (
    <>
      {pairs.map(({ key, value }) => (
        <span class="tag" key={key}>
          {key}={value}
        </span>
      ))}
    </>
  );
}

/** The run a version was registered from: a link to its page, or its MLflow run ID when the organization has no such run. */
export function SourceRun({ version }: { version: ModelVersion }) {
  if (version.run)
    return (
      <Link href={runPath(version.run.projectName, version.run.runId)} title={version.run.name}>
        {version.run.displayId}
      </Link>
    );
  return version.mlflowRunId ? <span class="mono muted">{version.mlflowRunId}</span> : <span class="muted">–</span>;
}

/** Model versions, one row each; `withModel` adds a column naming (and linking) each version's model. */
export function VersionsTable({ versions, withModel = false }: { versions: ModelVersion[]; withModel?: boolean }) {
  return (
    <div class="table-scroll">
      <table class="data-table" data-testid="model-versions">
        <thead>
          <tr>
            {withModel && <th scope="col">Model</th>}
            <th scope="col" class="number">
              Version
            </th>
            <th scope="col">Aliases</th>
            <th scope="col">Stage</th>
            <th scope="col">Status</th>
            <th scope="col">Tags</th>
            <th scope="col">Description</th>
            <th scope="col">Source run</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((version) => (
            <tr key={`${version.modelName}/${version.version}`}>
              {withModel && (
                <td>
                  <Link href={modelPath(version.modelName)}>{version.modelName}</Link>
                </td>
              )}
              <td class="number">{version.version}</td>
              <td>
                {version.aliases.map((alias) => (
                  <span class="tag" key={alias}>
                    @{alias}
                  </span>
                ))}
              </td>
              <td>{version.stage}</td>
              <td>{version.status}</td>
              <td>
                <div class="tags-cell">
                  <KeyValues pairs={version.tags} />
                </div>
              </td>
              <td>{version.description}</td>
              <td data-testid="source-run">
                <SourceRun version={version} />
              </td>
              <td>
                <TimeAgo iso={version.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
