// Media by step: the images, audio and video of one log name at a picked step (several samples of
// a step side by side), and text files previewed inline up to a bounded size.

import { useState } from "preact/hooks";
import { useServerState } from "../../hooks.ts";
import { formatBytes, formatNumber } from "../../lib/format.ts";
import { previewOf, stepsOf } from "../../lib/logged-types.ts";
import type { FileRecord } from "../../types.ts";
import { ErrorNote, StepPicker } from "../common.tsx";
import { readTextStart } from "./feed.ts";

/** Bytes of a text file previewed. */
export const TEXT_PREVIEW_BYTES = 64 * 1024;

export function TextPreview({ file }: { file: FileRecord }) {
  const start = useServerState(["textPreview", file.url], () => readTextStart(file.url, TEXT_PREVIEW_BYTES));
  return (
    <div class="text-preview" data-testid="text-preview">
      <ErrorNote error={start.error} />
      {start.data && <pre>{start.data.text}</pre>}
      {start.data?.cut && (
        <p class="muted">
          The first {formatBytes(TEXT_PREVIEW_BYTES)} of {formatBytes(file.fileSize)};{" "}
          <a href={file.url} download={file.fileName}>
            download
          </a>{" "}
          for the rest.
        </p>
      )}
    </div>
  );
}

/** One file as what it is: an image, a player, a text preview, or a download link. */
export function MediaFile({ file }: { file: FileRecord }) {
  const kind = previewOf(file);
  const alt = file.caption ?? `${file.logName} at step ${file.step}`;
  return (
    <figure class="media-file" data-kind={kind ?? "file"}>
      {kind === "image" && <img src={file.url} alt={alt} loading="lazy" />}
      {/* biome-ignore lint/a11y/useMediaCaption: a logged clip has no caption track to give; its caption, when logged, is the text below it */}
      {kind === "audio" && <audio src={file.url} controls preload="metadata" aria-label={alt} />}
      {/* biome-ignore lint/a11y/useMediaCaption: as above */}
      {kind === "video" && <video src={file.url} controls preload="metadata" aria-label={alt} />}
      {kind === "text" && <TextPreview file={file} />}
      {file.caption && <figcaption class="caption">{file.caption}</figcaption>}
      <div class="muted">
        <a href={file.url} download={file.fileName}>
          {file.fileName}
        </a>{" "}
        · {formatBytes(file.fileSize)}
      </div>
    </figure>
  );
}

/** A log name's files over steps: a step picker (the last step first) and the files of that step. */
export function MediaSeries({ logName, files }: { logName: string; files: readonly FileRecord[] }) {
  const steps = stepsOf(files);
  const [index, setIndex] = useState<number | undefined>(undefined);
  const current = Math.min(index ?? steps.length - 1, steps.length - 1);
  const step = steps[current];
  const shown = files.filter((file) => file.step === step).sort((a, b) => (a.sampleIndex ?? 0) - (b.sampleIndex ?? 0));
  if (step === undefined) return <p class="muted">No file of {logName} has been uploaded yet.</p>;
  return (
    <>
      <StepPicker steps={steps} index={current} onIndex={setIndex} label={logName} />
      <div class="media-row" data-step={step}>
        {shown.map((file) => (
          <MediaFile key={file.fileName} file={file} />
        ))}
      </div>
      {shown.length > 1 && <p class="muted">{formatNumber(shown.length)} files at this step</p>}
    </>
  );
}
