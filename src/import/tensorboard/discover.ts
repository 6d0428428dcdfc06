import { readdir, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";

/** TensorBoard's event file names: `events.out.tfevents.<time>.<host>[suffix]`. */
export const EVENT_FILE = /^events\.out\.tfevents\./;

export interface EventFile {
  /** Path from the run's directory, with `/` separators (the key of the file's import offset). */
  name: string;
  path: string;
  size: number;
  /** Set for the files of an add_scalars sub-directory: its path from the run's directory (`loss/train`). */
  subSeries?: string;
}

export interface RunDirectory {
  /** Path from the log directory with `/` separators; "" for the log directory itself. */
  relativePath: string;
  files: EventFile[];
}

/**
 * The runs under a log directory: every directory holding event files is one run, except an
 * add_scalars sub-directory (tensorboardX's layout `<run>/<main tag>/<key>`, two levels below a
 * directory holding event files itself, whose first scalar's tag is `<main tag>`): its files join
 * the run as the series `<main tag>/<key>`. `firstScalarTag` reads a file's first scalar tag.
 * Files in name order (TensorBoard names them by creation time, so a restart's comes after).
 */
export async function discoverRuns(logdir: string, firstScalarTag: (path: string) => Promise<string | undefined>): Promise<RunDirectory[]> {
  const found = new Map<string, EventFile[]>();
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const files: EventFile[] = [];
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && EVENT_FILE.test(entry.name)) files.push({ name: entry.name, path, size: (await stat(path)).size });
    }
    if (files.length > 0) found.set(relative(logdir, dir).split(sep).join("/"), files);
  };
  await walk(logdir);

  const runs = new Map<string, EventFile[]>();
  for (const [path, files] of [...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const parts = path === "" ? [] : path.split("/");
    const parent = parts.length >= 2 ? parts.slice(0, -2).join("/") : undefined;
    const run = parent === undefined ? undefined : runs.get(parent);
    if (run && (await firstScalarTag(files[0]!.path)) === parts.at(-2)) {
      const subSeries = parts.slice(-2).join("/");
      for (const file of files) run.push({ ...file, name: `${subSeries}/${file.name}`, subSeries });
    } else runs.set(path, [...files]);
  }
  return [...runs].map(([relativePath, files]) => ({ relativePath, files }));
}
