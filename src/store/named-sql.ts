/**
 * A table of SQL texts written once for both backends (account-sql.ts, alert-sql.ts), as one
 * backend runs them: each text adapted once (`adapt`: PostgreSQL numbers the `?` placeholders),
 * then looked up by name in a Map, so a query name never indexes a plain object.
 */
export function namedSql<Q extends string>(table: Readonly<Record<Q, string>>, adapt: (text: string) => string = (text) => text) {
  const texts = new Map<string, string>(Object.entries<string>(table).map(([name, text]) => [name, adapt(text)]));
  return (query: Q): string => texts.get(query)!;
}

/** PostgreSQL's placeholders for a text written with `?`: $1, $2, … in order. */
export function numberedPlaceholders(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}
