// A run's files: image previews with their captions, a step slider for the images of one log name,
// sizes and download links (signed URLs, so no key is needed to follow them).

import { useState } from "preact/hooks";
import { api, type RunRef } from "../../api.ts";
import { useServerState } from "../../hooks.ts";
import { formatBytes, formatDate } from "../../lib/format.ts";
import type { FileRecord } from "../../types.ts";
import { ErrorNote, Loading, StepPicker } from "../common.tsx";

const IMAGE_EXTENSIONS = /\.(png|jpe?g|gif|webp|svg|bmp)$/i;
const isImage = (file: FileRecord) => file.fileType.toLowerCase().startsWith("image") || IMAGE_EXTENSIONS.test(file.fileName);

/** One file: its preview (images), caption, download link and facts. */
function FileBody({ file }: { file: FileRecord }) {
  return (
    <figure class="file-body">
      {isImage(file) && <img src={file.url} alt={file.caption ?? `${file.logName} ${file.fileName}`} loading="lazy" />}
      {file.caption && <figcaption class="caption">{file.caption}</figcaption>}
      <div>
        <a href={file.url} download={file.fileName}>
          {file.fileName}
        </a>
      </div>
      <div class="muted">
        {file.logName} · step {file.step} · {formatBytes(file.fileSize)} · {formatDate(file.time)}
      </div>
    </figure>
  );
}

/** The images of one log name over steps: a slider picks the step (the last one first). */
function ImageSeries({ logName, files }: { logName: string; files: FileRecord[] }) {
  const steps = [...new Set(files.map((file) => file.step))].sort((a, b) => a - b);
  const [index, setIndex] = useState(steps.length - 1);
  const current = Math.min(index, steps.length - 1);
  const step = steps[current]!;
  const shown = files.filter((file) => file.step === step).sort((a, b) => (a.sampleIndex ?? 0) - (b.sampleIndex ?? 0));
  return (
    <li class="file-card image-series" data-log-name={logName}>
      <h3 class="truncate" title={logName}>
        {logName}
      </h3>
      <StepPicker steps={steps} index={current} onIndex={setIndex} label={logName} testId="slider-step" />
      {shown.map((file) => (
        <FileBody key={file.fileName} file={file} />
      ))}
    </li>
  );
}

export function RunFiles({ run }: { run: RunRef }) {
  const files = useServerState(["files", run.runId], () => api.files(run));
  if (files.error) return <ErrorNote error={files.error} />;
  if (!files.data) return <Loading what="files" />;
  if (files.data.files.length === 0) return <p class="muted">This run has no files.</p>;
  // Images of one log name logged at several steps share a card with a slider; the rest are one card each.
  const images = new Map<string, FileRecord[]>();
  for (const file of files.data.files) if (isImage(file)) images.set(file.logName, [...(images.get(file.logName) ?? []), file]);
  const series = new Set([...images].filter(([, group]) => new Set(group.map((file) => file.step)).size > 1).map(([logName]) => logName));
  const cards: preact.JSX.Element[] = [];
  const placed = new Set<string>();
  for (const file of files.data.files) {
    if (isImage(file) && series.has(file.logName)) {
      if (placed.has(file.logName)) continue;
      placed.add(file.logName);
      cards.push(<ImageSeries key={`series ${file.logName}`} logName={file.logName} files={images.get(file.logName)!} />);
    } else
      cards.push(
        <li key={`${file.logName}/${file.step}/${file.fileName}`} class="file-card">
          <FileBody file={file} />
        </li>,
      );
  }
  return (
    <ul class="file-grid" data-testid="files">
      {cards}
    </ul>
  );
}
