/**
 * The Models view in headless Chromium against a real server: the navigation's Models entry lists
 * the registered models, a model's page shows its versions (aliases, stage, tags, description) with
 * a link to the run each came from, and that run's page lists, under Models, the model it logged
 * and the version registered from it. Names that look like markup are shown as text.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import type { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const API = "/api/2.0/mlflow";
const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));
const MODEL = "resnet/<b>bold</b>";

async function mlflow(client: ApiClient, path: string, body: Record<string, unknown>) {
  const response = await client.post(`${API}${path}`, body);
  assert.equal(response.status, 200, `${path}: ${JSON.stringify(response.body)}`);
  return response.body;
}

describe("the Models view in the web UI", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  let key: string;
  let client: ApiClient;
  let run: { id: number; displayId: string };
  const errors: string[] = [];

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer({ flags: { "--stale-after": "0" } });
    ({ key, client } = await makeOrg(test));
    const experimentId = (await mlflow(client, "/experiments/create", { name: "vision" })).experiment_id as string;
    const mlflowRunId = (await mlflow(client, "/runs/create", { experiment_id: experimentId, run_name: "trainer" })).run.info.run_id;
    run = (await client.get<{ id: number; displayId: string }>(`/api/runs/details/by-mlflow-id/${mlflowRunId}`)).body;
    await mlflow(client, "/logged-models", { experiment_id: experimentId, source_run_id: mlflowRunId, name: "net", model_type: "pytorch" });
    await mlflow(client, "/registered-models/create", { name: MODEL, description: "an image model" });
    await mlflow(client, "/model-versions/create", {
      name: MODEL,
      source: `mlflow-artifacts:/${experimentId}/${mlflowRunId}/artifacts/model`,
      run_id: mlflowRunId,
      description: "first cut",
      tags: [{ key: "dataset", value: "imagenet" }],
    });
    await mlflow(client, "/registered-models/alias", { name: MODEL, alias: "champion", version: "1" });
    await mlflow(client, "/model-versions/transition-stage", {
      name: MODEL,
      version: "1",
      stage: "Staging",
      archive_existing_versions: false,
    });
    await mlflow((await makeOrg(test)).client, "/registered-models/create", { name: "not-yours" });
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on("pageerror", (error) => errors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("opens Models from the navigation, a model's versions, the source run, and the run's models", async () => {
    await page.goto(new URL("/projects", test.url).toString());
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Models" }).click();
    await page.getByRole("heading", { name: "Models" }).waitFor();
    const table = page.getByTestId("models-table");
    await table.waitFor();
    assert.match(await table.innerText(), /an image model/);
    assert.doesNotMatch(await table.innerText(), /not-yours/);
    // Shown as text, never as markup.
    assert.equal(await table.locator("b").count(), 0);

    await table.getByRole("link", { name: MODEL }).click();
    await page.getByRole("heading", { name: MODEL }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/models/${encodeURIComponent(MODEL)}`);
    const versions = page.getByTestId("model-versions");
    const row = (await versions.locator("tbody tr").first().innerText()).replace(/\s+/g, " ");
    for (const text of ["@champion", "Staging", "READY", "dataset=imagenet", "first cut", run.displayId])
      assert.ok(row.includes(text), `${text} in ${row}`);

    await page.screenshot({ path: `${SCREENSHOTS}30-model-versions.png`, fullPage: true });
    await versions.getByRole("link", { name: run.displayId }).click();
    await page.getByRole("heading", { name: "trainer" }).waitFor();
    assert.equal(decodeURIComponent(new URL(page.url()).pathname), `/projects/vision/runs/${run.id}`);

    await page.getByRole("tab", { name: "Models" }).click();
    const made = page.getByTestId("run-models");
    await made.getByTestId("logged-models").waitFor();
    assert.match(await made.getByTestId("logged-models").innerText(), /net[\s\S]*pytorch[\s\S]*PENDING/);
    // Every cell sits under its column's header (a cell styled as a block once pushed the row's last cells out of their columns).
    for (const tableId of ["logged-models", "model-versions"]) {
      const misplaced = await made.getByTestId(tableId).evaluate((table) => {
        const headers = [...table.querySelectorAll("thead th")].map((th) => th.getBoundingClientRect().left);
        const cells = [...table.querySelectorAll("tbody tr:first-child td")].map((td) => td.getBoundingClientRect().left);
        return cells.length !== headers.length || cells.some((left, i) => Math.abs(left - headers[i]!) > 1);
      });
      assert.equal(misplaced, false, `${tableId}: cells under their headers`);
    }
    await page.screenshot({ path: `${SCREENSHOTS}31-run-models.png`, fullPage: true });
    await made.getByTestId("model-versions").getByRole("link", { name: MODEL }).click();
    await page.getByRole("heading", { name: MODEL }).waitFor();

    // A deep link to the model page loads it on its own.
    await page.reload();
    await page.getByTestId("model-versions").waitFor();
    assert.deepEqual(errors, []);
  });
});
