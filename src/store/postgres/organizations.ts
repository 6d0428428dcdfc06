import { toOrganization, type OrganizationRow } from "../rows.js";
import type { Organization } from "../store.js";
import { row, rows, type Sql } from "./db.js";

export async function listOrganizations(sql: Sql): Promise<Organization[]> {
  return (await rows<OrganizationRow>(sql, "SELECT id, slug, created_at FROM organizations ORDER BY created_at, slug")).map(toOrganization);
}

export async function getOrganizationBySlug(sql: Sql, slug: string): Promise<Organization | undefined> {
  const found = await row<OrganizationRow>(sql, "SELECT id, slug, created_at FROM organizations WHERE slug = $1", [slug]);
  return found && toOrganization(found);
}
