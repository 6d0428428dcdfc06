import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

describe("server smoke", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  it("creates a run and reads it back with the bootstrap key", async () => {
    const created = await test.client.createRun({ runName: "first", projectName: "my-ml-project" });
    assert.equal(created.displayId, "MMP-1");
    const details = await test.client.get(`/api/runs/details/${created.runId}`);
    assert.equal(details.status, 200);
    assert.equal(details.body.name, "first");
  });

  it("keeps another organization's run invisible", async () => {
    const created = await test.client.createRun();
    const other = await makeOrg(test);
    const response = await other.client.get(`/api/runs/details/${created.runId}`);
    assert.equal(response.status, 404);
    assert.deepEqual(Object.keys(response.body), ["error"]);
  });
});
