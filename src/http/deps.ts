import type { ServiceDeps } from "../services/deps.js";
import type { Services } from "../services/services.js";

/** What the HTTP application is built from (src/app.ts). */
export interface AppDeps extends ServiceDeps {
  /** HMAC secret of signed file URLs (files/signing-secret.ts). */
  signingSecret: Buffer;
}

/** What every route plugin takes: the application's dependencies and the services built from them once. */
export interface RouteDeps extends AppDeps {
  services: Services;
}
