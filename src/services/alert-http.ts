import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { type AllowList, parseAddress, refusalOf } from "../domain/alerts/address-policy.js";

/**
 * One POST to an alert destination (docs/decisions.md, "Alert destinations never reach inside").
 * The address policy is checked on the address actually connected to: a literal address before
 * connecting, a host name in the connection's own DNS look-up (so a name that resolves to
 * 127.0.0.1 is refused, and no second resolution can differ from the checked one). Redirects are
 * not followed: a 3xx is a failed attempt. The whole request, connection to last byte, is bounded
 * by `timeoutMs`, and at most 4 KiB of a response is read.
 */

export type PostResult = { ok: true; status: number } | { ok: false; error: string };

const MAX_RESPONSE_BYTES = 4096;

/** A DNS look-up that answers only allowed addresses, and an error naming the refusal when none is. */
function checkedLookup(allow: AllowList): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const allowed = addresses.filter((entry) => refusalOf(hostname, entry.address, allow) === undefined);
      if (allowed.length === 0) {
        const refusal = addresses.length > 0 ? refusalOf(hostname, addresses[0]!.address, allow)! : `${hostname} has no address`;
        return callback(Object.assign(new Error(refusal), { code: "EREFUSEDADDRESS" }), "", 0);
      }
      if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      else callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

/** Why the URL cannot be a destination at all (not http(s), or a refused literal address); undefined when it may be tried. */
export function urlRefusal(url: string, allow: AllowList): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "url: must be an absolute http(s) URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "url: must be an http or https URL";
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  if (parseAddress(host)) return refusalOf(host, host, allow);
  return undefined;
}

export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { allow: AllowList; timeoutMs: number; signal?: AbortSignal },
): Promise<PostResult> {
  const refused = urlRefusal(url, options.allow);
  if (refused) return Promise.resolve({ ok: false, error: refused });
  const target = new URL(url);
  const client = target.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const request = client.request(target, {
      method: "POST",
      agent: false,
      lookup: checkedLookup(options.allow),
      headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body).toString() },
    });
    const timer = setTimeout(() => finish({ ok: false, error: `no answer within ${options.timeoutMs} ms` }), options.timeoutMs);
    options.signal?.addEventListener("abort", () => finish({ ok: false, error: "interrupted: the server stopped" }), { once: true });
    request.on("error", (error) => finish({ ok: false, error: error.message }));
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) return finish({ ok: true, status });
      if (status >= 300 && status < 400) {
        return finish({ ok: false, error: `HTTP ${status}: redirect to ${response.headers.location ?? "(none)"} not followed` });
      }
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
        if (text.length >= MAX_RESPONSE_BYTES) finish({ ok: false, error: `HTTP ${status}: ${text.slice(0, MAX_RESPONSE_BYTES)}` });
      });
      response.on("end", () => finish({ ok: false, error: `HTTP ${status}${text ? `: ${text}` : ""}` }));
      response.on("error", () => finish({ ok: false, error: `HTTP ${status}` }));
    });
    request.end(body);
  });
}
