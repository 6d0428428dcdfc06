/**
 * The SQL of the alert store (workflows/alerts.ts), written once for both backends: `?`
 * placeholders (PostgreSQL's operations number them), booleans as 0/1 integers, nullable
 * parameters cast so PostgreSQL knows their type. The one difference of dialect is the claim's
 * row locking, in CLAIM_LOCKING. Queries are chosen by name: no SQL is ever built from input.
 */

const RULE_COLUMNS = `r.id, r.org_id, r.project_id, p.name AS project_name, r.name, r.condition, r.enabled, r.created_at, r.updated_at`;
const RULE_FROM = "FROM alert_rules r JOIN projects p ON p.id = r.project_id";
const DESTINATION_COLUMNS = "id, name, kind, url, created_at";
const DELIVERY_COLUMNS = `d.id, d.destination_id, t.name AS destination_name, d.status, d.attempts, d.last_error,
  d.next_attempt_at, d.delivered_at`;
const EVENT_COLUMNS = `e.id AS event_id, e.rule_id, e.rule_name, e.run_id, u.name AS run_name, u.display_id, p.name AS project_name,
  e.kind, e.title, e.body, e.level, e.created_at`;

/** Where PostgreSQL's claim takes its rows: locked, skipping those another claim has locked. */
export const CLAIM_LOCKING = "{locking}";

export const ALERT_SQL = {
  insertDestination: `INSERT INTO alert_destinations (org_id, name, kind, url, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)
    RETURNING ${DESTINATION_COLUMNS}`,
  listDestinations: `SELECT ${DESTINATION_COLUMNS} FROM alert_destinations WHERE org_id = ? ORDER BY id`,
  getDestination: `SELECT ${DESTINATION_COLUMNS} FROM alert_destinations WHERE org_id = ? AND id = ?`,
  deleteDestination: "DELETE FROM alert_destinations WHERE org_id = ? AND id = ?",

  insertRule: `INSERT INTO alert_rules (org_id, project_id, name, kind, condition, enabled, created_at, updated_at)
    SELECT ?, p.id, ?, ?, ?, ?, ?, ? FROM projects p WHERE p.org_id = ? AND p.id = ? RETURNING id`,
  // Only the organization's destinations are named.
  insertRuleDestination: `INSERT INTO alert_rule_destinations (rule_id, destination_id)
    SELECT ?, d.id FROM alert_destinations d WHERE d.org_id = ? AND d.id = ? ON CONFLICT DO NOTHING`,
  deleteRuleDestinations: "DELETE FROM alert_rule_destinations WHERE rule_id = ?",
  getRule: `SELECT ${RULE_COLUMNS} ${RULE_FROM} WHERE r.org_id = ? AND r.id = ?`,
  listRules: `SELECT ${RULE_COLUMNS} ${RULE_FROM} WHERE r.org_id = ? AND r.project_id = ? ORDER BY r.id`,
  listEnabledRules: `SELECT ${RULE_COLUMNS} ${RULE_FROM} WHERE r.org_id = ? AND r.project_id = ? AND r.enabled = 1 ORDER BY r.id`,
  ruleDestinations: "SELECT destination_id FROM alert_rule_destinations WHERE rule_id = ? ORDER BY destination_id",
  projectRuleDestinations: `SELECT rd.rule_id, rd.destination_id FROM alert_rule_destinations rd JOIN alert_rules r ON r.id = rd.rule_id
    WHERE r.project_id = ? ORDER BY rd.destination_id`,
  updateRule: `UPDATE alert_rules SET name = coalesce(CAST(? AS TEXT), name), kind = coalesce(CAST(? AS TEXT), kind),
    condition = coalesce(CAST(? AS TEXT), condition), enabled = coalesce(CAST(? AS INTEGER), enabled), updated_at = ?
    WHERE org_id = ? AND id = ?`,
  clearRuleStates: "DELETE FROM alert_states WHERE rule_id = ?",
  deleteRule: "DELETE FROM alert_rules WHERE org_id = ? AND id = ?",

  runContext: "SELECT org_id, project_id, name, display_id FROM runs WHERE id = ?",
  runStates: "SELECT rule_id, active, streak FROM alert_states WHERE run_id = ?",
  // Compare-and-set from the initial state: a row that does not exist yet, or one back at (0, 0).
  setStateFromInitial: `INSERT INTO alert_states (rule_id, run_id, active, streak, updated_at)
    SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM alert_rules WHERE id = ?) AND EXISTS (SELECT 1 FROM runs WHERE id = ?)
    ON CONFLICT (rule_id, run_id) DO UPDATE SET active = excluded.active, streak = excluded.streak, updated_at = excluded.updated_at
    WHERE alert_states.active = 0 AND alert_states.streak = 0`,
  setState: `UPDATE alert_states SET active = ?, streak = ?, updated_at = ?
    WHERE rule_id = ? AND run_id = ? AND active = ? AND streak = ?`,
  insertEvent: `INSERT INTO alert_events (org_id, project_id, run_id, rule_id, rule_name, kind, title, body, level, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  insertDelivery: `INSERT INTO alert_deliveries (id, org_id, event_id, destination_id, status, attempts, next_attempt_at, created_at)
    SELECT ?, d.org_id, ?, d.id, 'pending', 0, ?, ? FROM alert_destinations d WHERE d.org_id = ? AND d.id = ?`,
  stalledCandidates: `SELECT ${RULE_COLUMNS}, u.id AS run_id, u.name AS run_name, u.status, u.heartbeat_at, s.active, s.streak
    ${RULE_FROM} JOIN runs u ON u.project_id = r.project_id
    LEFT JOIN alert_states s ON s.rule_id = r.id AND s.run_id = u.id
    WHERE r.kind = 'stalled' AND r.enabled = 1 AND (u.status = 'RUNNING' OR s.active = 1) ORDER BY r.id, u.id`,

  listEvents: `SELECT ${EVENT_COLUMNS} FROM alert_events e JOIN runs u ON u.id = e.run_id JOIN projects p ON p.id = e.project_id
    WHERE e.org_id = ? AND e.project_id = ? AND (CAST(? AS BIGINT) IS NULL OR e.run_id = ?) AND (CAST(? AS BIGINT) IS NULL OR e.id < ?)
    ORDER BY e.id DESC LIMIT ?`,
  // The deliveries of a page of events: those of the organization's events in the page's ID range.
  eventDeliveries: `SELECT d.event_id, ${DELIVERY_COLUMNS} FROM alert_deliveries d JOIN alert_destinations t ON t.id = d.destination_id
    WHERE d.org_id = ? AND d.event_id BETWEEN ? AND ? ORDER BY d.seq`,
  listDeliveries: `SELECT d.seq, d.event_id, e.title, e.created_at, ${DELIVERY_COLUMNS}
    FROM alert_deliveries d JOIN alert_destinations t ON t.id = d.destination_id JOIN alert_events e ON e.id = d.event_id
    WHERE d.org_id = ? AND (CAST(? AS TEXT) IS NULL OR d.status = ?) AND (CAST(? AS BIGINT) IS NULL OR d.seq < ?)
    ORDER BY d.seq DESC LIMIT ?`,
  retryDelivery: `UPDATE alert_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, claimed_until = NULL, claim_token = NULL
    WHERE org_id = ? AND id = ? AND status = 'failed'`,
  anyDue: `SELECT seq FROM alert_deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
    LIMIT 1`,
  claimDeliveries: `UPDATE alert_deliveries SET claimed_until = ?, claim_token = ? WHERE seq IN (
    SELECT seq FROM alert_deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
    ORDER BY next_attempt_at, seq LIMIT ? ${CLAIM_LOCKING})`,
  claimedDeliveries: `SELECT d.id, d.attempts, t.id AS destination_id, t.kind AS destination_kind, t.url, t.secret, ${EVENT_COLUMNS}
    FROM alert_deliveries d JOIN alert_destinations t ON t.id = d.destination_id JOIN alert_events e ON e.id = d.event_id
    LEFT JOIN runs u ON u.id = e.run_id LEFT JOIN projects p ON p.id = e.project_id
    WHERE d.claim_token = ? ORDER BY d.seq`,
  // An outcome without an attempt (deferred: attempts + 0) keeps the last error.
  finishDelivery: `UPDATE alert_deliveries SET status = ?, attempts = attempts + ?,
    last_error = CASE WHEN CAST(? AS INTEGER) = 0 THEN last_error ELSE CAST(? AS TEXT) END, next_attempt_at = ?, delivered_at = ?,
    claimed_until = NULL, claim_token = NULL WHERE id = ? AND claim_token = ?`,
} as const;

export type AlertQuery = keyof typeof ALERT_SQL;
