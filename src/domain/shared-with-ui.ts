// The server's rules the web UI applies too (docs/architecture.md, "Rules the UI shares"). web/src
// takes values from src/ through this module alone (API types it derives from src/http/schemas,
// type-only), so each rule is written once and the UI cannot drift from the server. Every module
// re-exported here is pure, with no Node API and no package (shared-with-ui.test.ts follows the
// imports), so Vite bundles it into the browser code.

export {
  ALERT_LEVELS,
  type AlertLevel,
  ANY_METRIC,
  type Condition,
  CONDITION_TYPES,
  type ConditionType,
  ENDED_STATUSES,
  type EndedStatus,
  MAX_CONSECUTIVE,
  MIN_STALLED_SECONDS,
} from "./alerts/conditions.js";
export { alertName, type ConditionInput, MAX_ALERT_NAME_LENGTH, normalizeCondition } from "./alerts/rules.js";
export { AUDIT_ACTIONS, type AuditAction } from "./audit.js";
export { CONSOLE_LOG_TYPES } from "./console-logs.js";
export { AGGREGATIONS, DIRECTIONS } from "./leaderboard.js";
export { logGroupOf } from "./log-names.js";
export { flatten, isPlainObject, type Json, splitKeys } from "./merge.js";
export { BATCH_MAX_LOG_NAMES, BATCH_MAX_POINTS, BATCH_MAX_RUNS, bucketsForRuns, pointsPerSeriesBound } from "./metric-batch.js";
export { METRIC_READ_NAMES } from "./metric-pages.js";
export { safeReturnTo, SSO_REFUSALS } from "./oidc.js";
export { type ValueFlag, valueFlagOfFlags } from "./non-finite.js";
export { runDuration } from "./run-duration.js";
export { type LeafOperator, RUN_FILTER_GRAMMAR } from "./run-filter-grammar.js";
export { runSortOf } from "./run-sort.js";
export { RUN_STATUSES, type RunStatus } from "./status.js";
export { PASSWORD_MIN_LENGTH } from "./people-limits.js";
