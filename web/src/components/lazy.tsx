// Views a page shows only on demand (the sweep analysis, logged histograms, tables and media) are
// their own scripts, loaded when first drawn: the page's first chart does not wait for their code
// to be fetched and parsed (bench:ui measured the larger bundle in the first panel's time).

import type { ComponentType, JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ErrorNote, Loading } from "./common.tsx";

/** A component whose code `load` fetches when it is first drawn (once per page). */
export function lazy<P extends object>(what: string, load: () => Promise<ComponentType<P>>): (props: P) => JSX.Element {
  let loaded: ComponentType<P> | undefined;
  return function Lazy(props: P) {
    const [component, setComponent] = useState<ComponentType<P> | undefined>(() => loaded);
    const [error, setError] = useState<string>();
    useEffect(() => {
      if (component) return;
      load().then(
        (found) => {
          loaded = found;
          setComponent(() => found);
        },
        (failure: Error) => setError(`${what} could not be loaded (${failure.message}): reload the page`),
      );
    }, []);
    if (error) return <ErrorNote error={error} />;
    const Component = component;
    return Component ? <Component {...props} /> : <Loading what={what} />;
  };
}
