// Which metric a view opens on when the URL names none (compare, leaderboard): the one a researcher
// looks at first, a validation loss, never a system metric (`sys/cpu.percentage.avg` sorts first).
// System metrics are drawn against time (lib/series.ts, drawnAxis): their steps count samples.

/** Log groups of system metrics (the pluto-ml client logs CPU, memory, GPU under `sys/`). */
const SYSTEM_GROUPS = ["sys", "system"];

const groupOf = (name: string) => name.slice(0, Math.max(0, name.indexOf("/"))).toLowerCase();
/** Whether a metric is a system metric (CPU, memory, GPU), logged against the client's own sample counter, not a training step. */
export const isSystem = (name: string) => SYSTEM_GROUPS.includes(groupOf(name));
const isValidation = (name: string) =>
  /^(val|valid|validation|eval|evaluation|test)([/_.-]|$)/i.test(name) || /[/_.-](val|valid|eval)[/_.-]/i.test(name);
const isLoss = (name: string) => /loss/i.test(name);

/**
 * The default metric among `names` (ascending): a validation loss, then a validation metric, then a
 * loss, then any metric that is not a system one, then the first; "" when there is none.
 */
export function defaultMetric(names: readonly string[]): string {
  const preferences = [(name: string) => isValidation(name) && isLoss(name), isValidation, isLoss, (name: string) => !isSystem(name)];
  for (const prefer of preferences) {
    const found = names.find((name) => !isSystem(name) && prefer(name));
    if (found !== undefined) return found;
  }
  return names[0] ?? "";
}

/**
 * The metrics the runs table shows by default: up to `count` of `names` that are not system
 * metrics, validation losses first, then other validation metrics, then losses, then the rest.
 */
export function mainMetrics(names: readonly string[], count = 3): string[] {
  const rank = (name: string) => (isValidation(name) ? 0 : 2) + (isLoss(name) ? 0 : 1);
  return names
    .filter((name) => !isSystem(name))
    .map((name, index) => ({ name, index }))
    .sort((a, b) => rank(a.name) - rank(b.name) || a.index - b.index)
    .slice(0, count)
    .map(({ name }) => name);
}
