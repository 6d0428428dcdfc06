/**
 * How long the names of projects and runs may be, on Stepwise's routes and MLflow's alike
 * (docs/api.md, "Limits on every request"): a project (an MLflow experiment) 1 to 255 characters,
 * a run 1 to 1,000. One set, so a name written through one protocol can always be read, listed and
 * opened through the other.
 */
export const NAME_LIMITS = {
  projectName: 255,
  runName: 1000,
} as const;
