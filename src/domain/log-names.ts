/** The group of a log name: the part before its last `/`, or "" when there is none (decisions §6). */
export function logGroupOf(logName: string): string {
  const slash = logName.lastIndexOf("/");
  return slash === -1 ? "" : logName.slice(0, slash);
}
