import { ACCOUNT_SQL } from "../account-sql.js";
import type { AccountOperations } from "../workflows/accounts.js";
import type { Statements } from "./statements.js";

/** The account store's SQL (account-sql.ts) as SQLite runs it. */
export function sqliteAccountOperations(s: Statements): Omit<AccountOperations, "insertOrganization"> {
  return {
    accountRows: (query, params) => s.get(ACCOUNT_SQL[query]).all(...params) as Record<string, unknown>[],
    accountRow: (query, params) => s.get(ACCOUNT_SQL[query]).get(...params) as Record<string, unknown> | undefined,
    accountRun: (query, params) => s.get(ACCOUNT_SQL[query]).run(...params).changes,
  };
}
