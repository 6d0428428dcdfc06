import { ACCOUNT_SQL } from "../account-sql.js";
import { namedSql, numberedPlaceholders } from "../named-sql.js";
import type { Async } from "../workflow.js";
import type { AccountOperations } from "../workflows/accounts.js";
import { rows, run, type Sql } from "./db.js";

/** The account store's SQL (account-sql.ts) as PostgreSQL runs it: placeholders numbered. */
const textOf = namedSql(ACCOUNT_SQL, numberedPlaceholders);

export function postgresAccountOperations(sql: Sql): Omit<Async<AccountOperations>, "insertOrganization"> {
  return {
    accountRows: (query, params) => rows<Record<string, unknown>>(sql, textOf(query), params),
    accountRow: async (query, params) => (await rows<Record<string, unknown>>(sql, textOf(query), params))[0],
    accountRun: (query, params) => run(sql, textOf(query), params),
  };
}
