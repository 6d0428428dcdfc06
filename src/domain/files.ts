import { invalidInput } from "./errors.js";

/** The log type a file's name is listed under in the run's log names, from its declared file type. */
export function logTypeOfFile(fileType: string): "IMAGE" | "VIDEO" | "AUDIO" | "TEXT" | "FILE" {
  const type = fileType.toLowerCase().replace(/^\./, "");
  const [major, minor = type] = type.includes("/") ? type.split("/", 2) : [undefined, type];
  if (major === "image" || IMAGE_EXTENSIONS.has(minor)) return "IMAGE";
  if (major === "video" || VIDEO_EXTENSIONS.has(minor)) return "VIDEO";
  if (major === "audio" || AUDIO_EXTENSIONS.has(minor)) return "AUDIO";
  if (major === "text" || TEXT_EXTENSIONS.has(minor)) return "TEXT";
  return "FILE";
}

const IMAGE_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "bmp", "webp", "svg", "tif", "tiff", "ico", "avif"]);
const VIDEO_EXTENSIONS = new Set(["mp4", "webm", "mov", "avi", "mkv", "mpeg", "mpg"]);
const AUDIO_EXTENSIONS = new Set(["wav", "mp3", "flac", "ogg", "m4a", "aac", "opus"]);
const TEXT_EXTENSIONS = new Set(["txt", "log", "md", "csv", "tsv", "json", "yaml", "yml"]);

/** Content types of known extensions; a Map, so a declared type like "constructor" finds nothing. */
const CONTENT_TYPES = new Map<string, string>([
  ["png", "image/png"],
  ["jpg", "image/jpeg"],
  ["jpeg", "image/jpeg"],
  ["gif", "image/gif"],
  ["bmp", "image/bmp"],
  ["webp", "image/webp"],
  ["svg", "image/svg+xml"],
  ["tif", "image/tiff"],
  ["tiff", "image/tiff"],
  ["avif", "image/avif"],
  ["mp4", "video/mp4"],
  ["webm", "video/webm"],
  ["wav", "audio/wav"],
  ["mp3", "audio/mpeg"],
  ["flac", "audio/flac"],
  ["ogg", "audio/ogg"],
  ["txt", "text/plain; charset=utf-8"],
  ["log", "text/plain; charset=utf-8"],
  ["md", "text/markdown; charset=utf-8"],
  ["csv", "text/csv; charset=utf-8"],
  ["json", "application/json"],
  ["html", "text/html; charset=utf-8"],
]);

/**
 * The Content-Type a download is served with: the declared file type when it is a media type or a
 * known extension, else a byte stream. SVG and HTML are served as attachments by the route, so a
 * stored file never runs script in the UI's origin.
 */
export function contentTypeOfFile(fileType: string, fileName: string): string {
  const type = fileType.toLowerCase().replace(/^\./, "");
  if (/^[a-z]+\/[a-z0-9.+-]+$/.test(type)) return type;
  return (
    CONTENT_TYPES.get(type) ?? CONTENT_TYPES.get((/\.([a-z0-9]+)$/i.exec(fileName)?.[1] ?? "").toLowerCase()) ?? "application/octet-stream"
  );
}

/** Whether a browser may show the file inline; anything that can carry script is downloaded. */
export function isSafeInline(contentType: string): boolean {
  return /^(image\/(png|jpeg|gif|bmp|webp|tiff|avif)|video\/|audio\/|text\/plain|text\/csv|application\/json)/.test(contentType);
}

/**
 * The Content-Disposition of a download: inline only for types that cannot run script, and the
 * last segment of the name for the browser to save it under.
 */
export function contentDispositionOf(contentType: string, fileName: string): string {
  const disposition = isSafeInline(contentType) ? "inline" : "attachment";
  return `${disposition}; filename*=UTF-8''${encodeURIComponent(fileName.split("/").at(-1)!)}`;
}

/**
 * File names are labels, never paths: bytes are stored under the file's numeric ID, but a name that
 * looks like a path escape is refused anyway, so no later code can be tricked into using it as one.
 */
export function checkFileName(fileName: string, field: string): void {
  if (fileName.length === 0 || fileName.length > 255) throw invalidInput(`${field}: must be 1 to 255 characters`);
  if (/[\u0000-\u001f\\]/.test(fileName)) throw invalidInput(`${field}: must not contain control characters or backslashes`);
  if (fileName.startsWith("/") || /^[a-zA-Z]:/.test(fileName)) throw invalidInput(`${field}: must not be an absolute path`);
  if (fileName.split("/").some((part) => part === ".." || part === "."))
    throw invalidInput(`${field}: must not contain '.' or '..' path segments`);
}
