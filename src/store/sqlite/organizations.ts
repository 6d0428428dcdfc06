import { toOrganization, type OrganizationRow } from "../rows.js";
import type { Organization } from "../store.js";
import type { Statements } from "./statements.js";

export function listOrganizations(s: Statements): Organization[] {
  return (s.get("SELECT id, slug, created_at FROM organizations ORDER BY created_at, slug").all() as OrganizationRow[]).map(toOrganization);
}

export function getOrganizationBySlug(s: Statements, slug: string): Organization | undefined {
  const row = s.get("SELECT id, slug, created_at FROM organizations WHERE slug = ?").get(slug) as OrganizationRow | undefined;
  return row && toOrganization(row);
}
