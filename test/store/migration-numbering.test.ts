import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, it } from "node:test";
import { DATABASE_FILE, SqliteStore } from "../../src/store/sqlite/index.js";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { StoreOpenError } from "../../src/store/store.js";
import { createTestDatabase } from "../helpers/postgres.js";
import { makeTempDir } from "../helpers/start-server.js";

const NEWER = /schema version 9999, newer than this Stepwise knows \(\d+\): upgrade Stepwise/;

/** Migrations are numbered alike on both backends, and both refuse a schema newer than they know (docs/decisions.md, "One schema"). */
describe("migration numbers", () => {
  it("SQLite refuses a database migrated by a newer Stepwise", async () => {
    const dir = makeTempDir();
    try {
      await (await SqliteStore.open(dir)).close();
      const db = new Database(join(dir, DATABASE_FILE));
      db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (9999, 0)").run();
      db.close();
      assert.throws(
        () => SqliteStore.open(dir),
        (error: unknown) => error instanceof StoreOpenError && NEWER.test(error.message),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("PostgreSQL renumbers a database migrated under its old numbers (0002-0006) once, and applies nothing twice", async () => {
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await (await PostgresStore.open(database.url)).close();
      const versions = async () =>
        (await client.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version")).rows.map((row) => row.version);
      const current = await versions();
      assert.deepEqual(current, [1, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]);
      // The database as a Stepwise before the renumbering left it: its rows under the old numbers,
      // and nothing of the migrations that came after (0013 and 0014 each added a column, 0015 two tables, 0016 one, 0017 changed an index, 0018 one table, 0019 two tables and two indexes, 0020 the alert tables, 0021 users' columns, memberships, sessions and keys' roles, 0022 invitations and failed sign-ins, 0023 the audit log, 0024 the pending sign-ins).
      await client.query("DELETE FROM schema_migrations WHERE version > 12");
      await client.query("ALTER TABLE projects DROP COLUMN mlflow_default");
      await client.query("ALTER TABLE runs DROP COLUMN mlflow_user_id");
      await client.query(
        "DROP TABLE model_versions, registered_models, mlflow_logged_models, saved_views, blob_purges, retention_policies",
      );
      await client.query(
        "DROP TABLE alert_deliveries, alert_events, alert_states, alert_rule_destinations, alert_rules, alert_destinations",
      );
      await client.query("DROP TABLE oidc_logins");
      await client.query("DROP INDEX runs_deleted, projects_deleted");
      await client.query("DROP TABLE invitations, sign_in_failures");
      await client.query("DROP TABLE audit_log");
      await client.query("DROP TABLE sessions, memberships");
      await client.query("ALTER TABLE users DROP COLUMN email, DROP COLUMN kind, DROP COLUMN password_hash");
      await client.query("ALTER TABLE api_keys DROP COLUMN role");
      await client.query("DROP INDEX api_keys_user");
      await client.query("DROP INDEX metric_chunks_metric_end_id");
      await client.query("CREATE INDEX metric_chunks_metric_end ON metric_chunks(metric_id, end_step)");
      await client.query("UPDATE schema_migrations SET version = version - 6 WHERE version > 6");
      await (await PostgresStore.open(database.url)).close();
      assert.deepEqual(
        await versions(),
        current,
        "renumbered, no migration applied again (a second ALTER TABLE ADD COLUMN would fail), the later ones applied",
      );
      await client.query("INSERT INTO schema_migrations (version, applied_at) VALUES (9999, 0)");
      await assert.rejects(
        PostgresStore.open(database.url),
        (error: unknown) => error instanceof StoreOpenError && NEWER.test(error.message),
      );
    } finally {
      await client.end();
      await database.drop();
    }
  });
});
