import { randomUUID } from "node:crypto";
import { toOrganization, type OrganizationRow } from "../rows.js";
import type { Organization, User } from "../store.js";
import type { Statements } from "./statements.js";

export function listOrganizations(s: Statements): Organization[] {
  return (s.get("SELECT id, slug, created_at FROM organizations ORDER BY created_at, slug").all() as OrganizationRow[]).map(toOrganization);
}

export function getOrganizationBySlug(s: Statements, slug: string): Organization | undefined {
  const row = s.get("SELECT id, slug, created_at FROM organizations WHERE slug = ?").get(slug) as OrganizationRow | undefined;
  return row && toOrganization(row);
}

export function createUser(s: Statements, orgId: string, name: string, now: number): User {
  const id = randomUUID();
  s.get("INSERT INTO users (id, org_id, name, created_at) VALUES (?, ?, ?, ?)").run(id, orgId, name, now);
  return { id, orgId, name, createdAt: now };
}

export function listUsers(s: Statements, orgId: string): User[] {
  const rows = s.get("SELECT id, org_id, name, created_at FROM users WHERE org_id = ? ORDER BY created_at, id").all(orgId) as {
    id: string;
    org_id: string;
    name: string;
    created_at: number;
  }[];
  return rows.map((row) => ({ id: row.id, orgId: row.org_id, name: row.name, createdAt: row.created_at }));
}
