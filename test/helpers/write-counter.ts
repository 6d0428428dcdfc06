import Database from "better-sqlite3";
import { join } from "node:path";
import pg from "pg";
import { DATABASE_FILE } from "../../src/store/sqlite/index.js";
import type { TestServer } from "./start-server.js";

/** Tells whether a test server's store was written to: `read()` changes after every committed write. */
export interface WriteCounter {
  read(): Promise<number>;
  close(): Promise<void>;
}

/**
 * SQLite: the `data_version` of a second connection, which changes when another connection commits.
 * PostgreSQL: a row trigger on every table counts changed rows into a table of its own, in the
 * writing transaction (a rolled-back write counts nothing).
 */
export async function writeCounter(test: TestServer): Promise<WriteCounter> {
  if (test.databaseUrl === "") {
    const database = new Database(join(test.dataDir, DATABASE_FILE), { readonly: true });
    return {
      read: async () => database.pragma("data_version", { simple: true }) as number,
      close: async () => {
        database.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: test.databaseUrl });
  await client.connect();
  await client.query(`
    CREATE TABLE test_writes (n BIGINT NOT NULL);
    INSERT INTO test_writes VALUES (0);
    CREATE FUNCTION test_count_write() RETURNS trigger LANGUAGE plpgsql AS
      'BEGIN UPDATE test_writes SET n = n + 1; RETURN NULL; END';
    DO $$ DECLARE t text; BEGIN
      FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('test_writes', 'schema_migrations') LOOP
        EXECUTE format('CREATE TRIGGER test_count_write AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION test_count_write()', t);
      END LOOP;
    END $$;`);
  return {
    read: async () => Number((await client.query("SELECT n FROM test_writes")).rows[0].n),
    close: () => client.end(),
  };
}
