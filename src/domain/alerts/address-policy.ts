import ipaddr from "ipaddr.js";

/**
 * Which addresses a destination may reach (docs/decisions.md, "Alert destinations never reach
 * inside"). Destinations are URLs users choose, so by default only public unicast addresses are
 * allowed: loopback, private (RFC 1918, fc00::/7), link-local (169.254/16 with the cloud metadata
 * address, fe80::/10), unspecified, carrier-grade NAT, multicast, broadcast, documentation and
 * every other special-purpose range are refused. The operator's allow-list
 * (--alerts-allow-hosts) names host names and CIDR ranges that are allowed anyway.
 * The check is applied to the address actually connected to (services/alert-http.ts).
 */

export interface AllowList {
  /** Host names, lower case, matched exactly. */
  hosts: ReadonlySet<string>;
  ranges: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

export const EMPTY_ALLOW_LIST: AllowList = { hosts: new Set(), ranges: [] };

/**
 * Parses "host,10.0.0.0/8,127.0.0.1,::1" (commas or spaces): an entry that is an address or a CIDR
 * range is a range (an address alone is /32 or /128), anything else a host name. Throws on an
 * entry that is neither.
 */
export function parseAllowList(raw: string): AllowList {
  const hosts = new Set<string>();
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const entry of raw.split(/[\s,]+/).filter((part) => part !== "")) {
    if (ipaddr.isValidCIDR(entry)) ranges.push(unmapRange(ipaddr.parseCIDR(entry)));
    else if (ipaddr.isValid(entry) && /^[0-9a-f:.]+$/i.test(entry)) {
      const address = ipaddr.process(entry);
      ranges.push([address, address.kind() === "ipv4" ? 32 : 128]);
    } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(entry)) hosts.add(entry.toLowerCase());
    else throw new Error(`'${entry}' is neither a host name, an address nor a CIDR range`);
  }
  return { hosts, ranges };
}

function unmapRange([address, bits]: [ipaddr.IPv4 | ipaddr.IPv6, number]): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [address, bits];
}

/** The address as an IP (an IPv4-mapped IPv6 address as its IPv4 address), or undefined when it is not one. */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (!/^[0-9a-f:.]+$/i.test(bare) || !ipaddr.isValid(bare)) return undefined;
  return ipaddr.process(bare);
}

/** Why connecting to `address` (reached through `host`) is refused, or undefined when it is allowed. */
export function refusalOf(host: string, address: string, allow: AllowList): string | undefined {
  const ip = parseAddress(address);
  if (!ip) return `'${address}' is not an IP address`;
  if (allow.hosts.has(host.toLowerCase())) return undefined;
  if (allow.ranges.some(([network, bits]) => network.kind() === ip.kind() && ip.match(network, bits))) return undefined;
  const range = ip.range();
  if (range === "unicast") return undefined;
  return `${host === address ? address : `${host} (${address})`} is a ${range} address, refused (allow it with --alerts-allow-hosts)`;
}
