// A run's files: image previews, sizes and download links (signed URLs, so no key is needed to follow them).

import { api, type RunRef } from "../../api.ts";
import { useAsync } from "../../hooks.ts";
import { formatBytes, formatDate } from "../../lib/format.ts";
import type { FileRecord } from "../../types.ts";
import { ErrorNote, Loading } from "../common.tsx";

const IMAGE_EXTENSIONS = /\.(png|jpe?g|gif|webp|svg|bmp)$/i;
const isImage = (file: FileRecord) => file.fileType.toLowerCase().startsWith("image") || IMAGE_EXTENSIONS.test(file.fileName);

export function RunFiles({ run }: { run: RunRef }) {
  const files = useAsync(() => api.files(run), [run.runId]);
  if (files.error) return <ErrorNote error={files.error} />;
  if (!files.data) return <Loading what="files" />;
  if (files.data.files.length === 0) return <p class="muted">This run has no files.</p>;
  return (
    <ul class="file-grid" data-testid="files">
      {files.data.files.map((file) => (
        <li key={`${file.logName}/${file.fileName}`} class="file-card">
          {isImage(file) && <img src={file.url} alt={`${file.logName} ${file.fileName}`} loading="lazy" />}
          <div>
            <a href={file.url} download={file.fileName}>
              {file.fileName}
            </a>
          </div>
          <div class="muted">
            {file.logName} · step {file.step} · {formatBytes(file.fileSize)} · {formatDate(file.time)}
          </div>
        </li>
      ))}
    </ul>
  );
}
