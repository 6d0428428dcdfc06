/**
 * The links MLflow's client prints, opened in headless Chromium against a real server: "View run
 * <name> at: <host>/#/experiments/<experiment ID>/runs/<run ID>" and "View experiment at:
 * <host>/#/experiments/<experiment ID>" land on Stepwise's run and project pages, the default
 * experiment "0" included, and through the sign-in page when the browser has no key yet.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import type { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const API = "/api/2.0/mlflow";

/** A run made as `mlflow.start_run()` makes it; its MLflow run ID. */
async function mlflowRun(client: ApiClient, body: Record<string, unknown>): Promise<string> {
  const response = await client.post(`${API}/runs/create`, { start_time: Date.now(), ...body });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.run.info.run_id;
}

describe("MLflow's printed links in the web UI", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  let key: string;
  let client: ApiClient;
  let ids: { inDefault: string; visionExperiment: string; inVision: string; foreign: string };
  const errors: string[] = [];

  before(async () => {
    test = await startTestServer({ flags: { "--stale-after": "0" } });
    ({ key, client } = await makeOrg(test));
    const visionExperiment = (await client.post(`${API}/experiments/create`, { name: "vision" })).body.experiment_id as string;
    ids = {
      // No experiment set: MLflow's default experiment "0".
      inDefault: await mlflowRun(client, { run_name: "first-try" }),
      visionExperiment,
      inVision: await mlflowRun(client, { experiment_id: visionExperiment, run_name: "resnet" }),
      foreign: await mlflowRun((await makeOrg(test)).client, { run_name: "not yours" }),
    };
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on("pageerror", (error) => errors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  const open = (path: string) => page.goto(new URL(path, test.url).toString());
  const pathOf = () => {
    const url = new URL(page.url());
    return decodeURIComponent(url.pathname) + url.hash;
  };

  it("opens a run link after signing in, on the run's page in the default experiment's project", async () => {
    await open(`/#/experiments/0/runs/${ids.inDefault}`);
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "first-try" }).waitFor();
    const run = (await client.get(`/api/runs/details/by-mlflow-id/${ids.inDefault}`)).body;
    assert.equal(pathOf(), `/projects/Default/runs/${run.id}`);
  });

  it("opens experiment links on the project's runs, the default experiment's included", async () => {
    await open(`/#/experiments/${ids.visionExperiment}`);
    await page.getByRole("heading", { name: "vision" }).waitFor();
    assert.equal(pathOf(), "/projects/vision");
    await page.waitForFunction(() => document.querySelector("[data-testid=runs-table] tbody tr")?.textContent?.includes("resnet"));

    await open("/#/experiments/0");
    await page.getByRole("heading", { name: "Default" }).waitFor();
    assert.equal(pathOf(), "/projects/Default");
    await page.waitForFunction(() => document.querySelector("[data-testid=runs-table] tbody tr")?.textContent?.includes("first-try"));
  });

  it("opens a run link in another experiment, as MLflow 2 prints it (a full stop after) and MLflow 3 (a workspace after)", async () => {
    const run = (await client.get(`/api/runs/details/by-mlflow-id/${ids.inVision}`)).body;
    for (const tail of [".", "?workspace=default"]) {
      await open(`/#/experiments/${ids.visionExperiment}/runs/${ids.inVision}${tail}`);
      await page.getByRole("heading", { name: "resnet" }).waitFor();
      assert.equal(pathOf(), `/projects/vision/runs/${run.id}`);
    }
    // The link was replaced in the history: Back does not return to it (and so to a redirect).
    await page.goBack();
    await page.waitForFunction(() => !location.hash.startsWith("#/experiments"));
  });

  it("says so for a run of another organization, or an unknown experiment", async () => {
    await open(`/#/experiments/0/runs/${ids.foreign}`);
    await page.getByRole("alert").filter({ hasText: "Cannot open MLflow run" }).waitFor();
    assert.match(await page.getByRole("alert").innerText(), /not found/);
    await open("/#/experiments/999999");
    await page.getByRole("alert").filter({ hasText: "Cannot open MLflow experiment 999999" }).waitFor();
    await page.getByRole("link", { name: "Go to projects" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    assert.deepEqual(errors, []);
  });
});
