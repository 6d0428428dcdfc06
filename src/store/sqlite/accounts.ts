import { ACCOUNT_SQL } from "../account-sql.js";
import { namedSql } from "../named-sql.js";
import type { AccountOperations } from "../workflows/accounts.js";
import type { Statements } from "./statements.js";

const textOf = namedSql(ACCOUNT_SQL);

/** The account store's SQL (account-sql.ts) as SQLite runs it. */
export function sqliteAccountOperations(s: Statements): Omit<AccountOperations, "insertOrganization"> {
  return {
    accountRows: (query, params) => s.get(textOf(query)).all(...params) as Record<string, unknown>[],
    accountRow: (query, params) => s.get(textOf(query)).get(...params) as Record<string, unknown> | undefined,
    accountRun: (query, params) => s.get(textOf(query)).run(...params).changes,
  };
}
