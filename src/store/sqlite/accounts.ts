import { ACCOUNT_SQL, type AccountQuery } from "../account-sql.js";
import type { AccountOperations } from "../workflows/accounts.js";
import type { Statements } from "./statements.js";

const texts = new Map<string, string>(Object.entries(ACCOUNT_SQL));
const textOf = (query: AccountQuery) => texts.get(query)!;

/** The account store's SQL (account-sql.ts) as SQLite runs it. */
export function sqliteAccountOperations(s: Statements): Omit<AccountOperations, "insertOrganization"> {
  return {
    accountRows: (query, params) => s.get(textOf(query)).all(...params) as Record<string, unknown>[],
    accountRow: (query, params) => s.get(textOf(query)).get(...params) as Record<string, unknown> | undefined,
    accountRun: (query, params) => s.get(textOf(query)).run(...params).changes,
  };
}
