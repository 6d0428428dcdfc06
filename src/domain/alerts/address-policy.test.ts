import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EMPTY_ALLOW_LIST, parseAllowList, refusalOf } from "./address-policy.js";

describe("the address policy of alert destinations", () => {
  it("refuses loopback, private, link-local (metadata), unique-local, unspecified, CGNAT, multicast and mapped forms of them", () => {
    const refused = [
      "127.0.0.1",
      "127.1.2.3",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
    ];
    const refused6 = ["::1", "::", "fe80::1", "fd00:ec2::254", "fc00::1", "::ffff:127.0.0.1", "::ffff:a9fe:a9fe", "ff02::1"];
    for (const address of [...refused, ...refused6]) assert.ok(refusalOf("h", address, EMPTY_ALLOW_LIST), address);
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
      assert.equal(refusalOf("h", address, EMPTY_ALLOW_LIST), undefined, address);
    assert.match(refusalOf("localhost", "127.0.0.1", EMPTY_ALLOW_LIST)!, /localhost \(127\.0\.0\.1\) is a loopback address/);
  });

  it("allows listed addresses, ranges and host names, and only those", () => {
    const allow = parseAllowList("127.0.0.1, 10.0.0.0/8 hooks.internal,::1");
    assert.equal(refusalOf("x", "127.0.0.1", allow), undefined);
    assert.equal(refusalOf("x", "::ffff:127.0.0.1", allow), undefined, "the mapped form of an allowed address");
    assert.ok(refusalOf("x", "127.0.0.2", allow));
    assert.equal(refusalOf("x", "10.200.1.1", allow), undefined);
    assert.equal(refusalOf("x", "::1", allow), undefined);
    assert.equal(refusalOf("Hooks.Internal", "192.168.0.9", allow), undefined);
    assert.ok(refusalOf("other.internal", "192.168.0.9", allow));
    assert.throws(() => parseAllowList("not a host!"), /neither a host name/);
  });
});
