import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError, ServerUnreachable } from "./api.ts";
import { queryClient } from "./hooks.ts";

test("server state retries an unreachable server with backoff, and no other error", () => {
  const { retry, retryDelay } = queryClient.getDefaultOptions().queries!;
  assert.equal(typeof retry, "function");
  assert.equal(typeof retryDelay, "function");
  const retries = retry as (failures: number, error: Error) => boolean;
  const delay = retryDelay as (attempt: number, error: Error) => number;
  assert.equal(retries(0, new ServerUnreachable("connection refused")), true);
  assert.equal(retries(50, new ServerUnreachable("connection refused")), true, "for as long as it takes");
  assert.equal(retries(0, new ApiError(400, "bad filter")), false);
  assert.equal(retries(0, new Error("a bug")), false);
  // TanStack counts attempts from 1: the first retry waits 1 s, then 2, 4, 8, 15, 15 …
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((attempt) => delay(attempt, new ServerUnreachable(""))),
    [1000, 2000, 4000, 8000, 15000, 15000],
  );
});
