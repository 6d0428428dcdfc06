import pg from "pg";

/** The PostgreSQL server a benchmark runs on (`-- --database-url postgres://…/db`), or undefined for the embedded store. */
export const DATABASE_SERVER_URL: string | undefined = (() => {
  const at = process.argv.indexOf("--database-url");
  return at === -1 ? undefined : process.argv[at + 1];
})();

/** A fresh database on `serverUrl`, named after the benchmark and this process, dropped by `drop`. */
export async function freshDatabase(serverUrl: string, label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  const name = `stepwise_bench_${label}_${process.pid}_${Date.now()}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
