/** The group of a log name: the part before its last `/`, or "" when there is none (docs/semantics.md, Metrics: points). */
export function logGroupOf(logName: string): string {
  const slash = logName.lastIndexOf("/");
  return slash === -1 ? "" : logName.slice(0, slash);
}

/** The log type a data row's name is listed under in the run's log names. */
export function logTypeOfData(dataType: string): "HISTOGRAM" | "TABLE" | "TEXT" | "DATA" {
  const type = dataType.toUpperCase();
  if (type === "HISTOGRAM" || type === "TABLE" || type === "TEXT") return type;
  if (type === "STRING-SERIES" || type === "STRING") return "TEXT";
  return "DATA";
}
