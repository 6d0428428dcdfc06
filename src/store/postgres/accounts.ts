import { ACCOUNT_SQL, type AccountQuery } from "../account-sql.js";
import type { Async } from "../workflow.js";
import type { AccountOperations } from "../workflows/accounts.js";
import { rows, run, type Sql } from "./db.js";

/** The account store's SQL (account-sql.ts) as PostgreSQL runs it: placeholders numbered. */
const texts = new Map(
  Object.entries(ACCOUNT_SQL).map(([name, text]) => {
    let n = 0;
    return [name, text.replace(/\?/g, () => `$${++n}`)];
  }),
);

const textOf = (query: AccountQuery) => texts.get(query)!;

export function postgresAccountOperations(sql: Sql): Omit<Async<AccountOperations>, "insertOrganization"> {
  return {
    accountRows: (query, params) => rows<Record<string, unknown>>(sql, textOf(query), params),
    accountRow: async (query, params) => (await rows<Record<string, unknown>>(sql, textOf(query), params))[0],
    accountRun: (query, params) => run(sql, textOf(query), params),
  };
}
