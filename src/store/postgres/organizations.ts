import { randomUUID } from "node:crypto";
import { toOrganization, type OrganizationRow } from "../rows.js";
import type { Organization, User } from "../store.js";
import { row, rows, run, type Sql } from "./db.js";

export async function listOrganizations(sql: Sql): Promise<Organization[]> {
  return (await rows<OrganizationRow>(sql, "SELECT id, slug, created_at FROM organizations ORDER BY created_at, slug")).map(toOrganization);
}

export async function getOrganizationBySlug(sql: Sql, slug: string): Promise<Organization | undefined> {
  const found = await row<OrganizationRow>(sql, "SELECT id, slug, created_at FROM organizations WHERE slug = $1", [slug]);
  return found && toOrganization(found);
}

export async function createUser(sql: Sql, orgId: string, name: string, now: number): Promise<User> {
  const id = randomUUID();
  await run(sql, "INSERT INTO users (id, org_id, name, created_at) VALUES ($1, $2, $3, $4)", [id, orgId, name, now]);
  return { id, orgId, name, createdAt: now };
}

export async function listUsers(sql: Sql, orgId: string): Promise<User[]> {
  const found = await rows<{ id: string; org_id: string; name: string; created_at: number }>(
    sql,
    "SELECT id, org_id, name, created_at FROM users WHERE org_id = $1 ORDER BY created_at, id",
    [orgId],
  );
  return found.map((row) => ({ id: row.id, orgId: row.org_id, name: row.name, createdAt: row.created_at }));
}
