// A change the alerts settings send (create, delete, toggle, retry): its error is shown where it
// was asked for, in the server's words, and the lists it changes are read again.

import { useState } from "preact/hooks";
import { queryClient } from "../../hooks.ts";

/** Query keys of the alerts settings' reads, so a change reloads what it touched. */
export const alertKeys = {
  rules: (projectName: string) => ["alertRules", projectName] as const,
  destinations: ["alertDestinations"] as const,
  /** Every page of a project's (or a run's) history. */
  events: ["alertEvents"] as const,
  deliveries: ["alertDeliveries"] as const,
};

export function useAction(): {
  run: (work: () => Promise<unknown>, reload: readonly (readonly unknown[])[]) => Promise<boolean>;
  error: string | undefined;
  busy: boolean;
  clearError: () => void;
} {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<unknown>, reload: readonly (readonly unknown[])[]) => {
    setError(undefined);
    setBusy(true);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      return false;
    } finally {
      setBusy(false);
      for (const queryKey of reload) void queryClient.invalidateQueries({ queryKey });
    }
  };
  return { run, error, busy, clearError: () => setError(undefined) };
}
