// The alerts settings' reads; a change (hooks.ts useAction) reloads the ones it touched.

/** Query keys of the alerts settings' reads, so a change reloads what it touched. */
export const alertKeys = {
  rules: (projectName: string) => ["alertRules", projectName] as const,
  destinations: ["alertDestinations"] as const,
  /** Every page of a project's (or a run's) history. */
  events: ["alertEvents"] as const,
  deliveries: ["alertDeliveries"] as const,
};
