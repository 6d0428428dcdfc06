/**
 * The alerts UI end to end in headless Chromium against a real server and a real HTTP receiver the
 * test starts (docs/api.md, "Alerts"): a webhook destination created on the project's settings page
 * shows its generated secret once (gone after a reload, never in the API's answers), "send test" delivers a test event, and deliveries
 * are signed with that very secret; the rule form refuses what the server would refuse before
 * sending (with the server's own checks), and shows the server's refusal of what only its schema refuses; a threshold rule created in the form fires when
 * ingested points cross it, its event shows in the run page's and the project's history with its
 * delivery delivered; with the receiver answering 500, the next event's delivery shows pending with
 * its last error, then failed in Delivery status, and Retry delivers it (same delivery ID). The
 * rule is turned off, edited and deleted from its row; a Slack destination (no secret) is added and deleted. Screenshots go to test-output/ui-screenshots/
 * (95-…) and docs/alerts.png.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { mkdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import type { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";
import { WebhookReceiver } from "../helpers/webhook-receiver.js";

const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));
const DOCS = fileURLToPath(new URL("../../docs/", import.meta.url));
const PROJECT = "alerting";
/**
 * The receiver listens on 127.0.0.1, which destinations may reach only when the operator allows it;
 * a delivery is given up after its second failed attempt (its first retry comes within 2 s).
 */
const ALERT_FLAGS = { "--alerts-allow-hosts": "127.0.0.1", "--alerts-max-attempts": "2" };

describe("alerts in the web UI", () => {
  let test: TestServer;
  let receiver: WebhookReceiver;
  let receiverStatus = 200;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let client: ApiClient;
  let run: { runId: number; projectName: string };
  let secret = "";
  let step = 0;
  const errors: string[] = [];
  const settings = () => new URL(`/projects/${PROJECT}/settings`, test.url).toString();
  const shot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
  /** Ingests `values` of train/loss at the next steps. */
  const loss = async (...values: number[]) => {
    const lines = values.map((value) => ({ step: step++, data: { "train/loss": value } }));
    assert.equal((await ingest(client, "metrics", run, toNdjson(lines))).status, 200);
  };
  const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    receiver = await WebhookReceiver.start();
    receiver.answer = () => ({ status: receiverStatus });
    test = await startTestServer({ flags: ALERT_FLAGS });
    const org = await makeOrg(test);
    client = org.client;
    const created = await client.createRun({ projectName: PROJECT, runName: "resnet-lr-0.1" });
    run = { runId: created.runId, projectName: PROJECT };
    await loss(1, 0.9, 0.8); // the project's metric names, for the form's picker
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(new URL("/projects", test.url).toString());
    await page.evaluate((apiKey) => localStorage.setItem("stepwise.apiKey", apiKey), org.key);
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await test?.close();
    await receiver?.close();
  });

  it("opens the settings from the project page", async () => {
    await page.goto(new URL(`/projects/${PROJECT}`, test.url).toString());
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByTestId("project-settings").waitFor();
    assert.equal(new URL(page.url()).pathname, `/projects/${PROJECT}/settings`);
  });

  it("shows a webhook's generated secret once, with a copy button, and never again; sends a test", async () => {
    await page.getByTestId("new-destination").locator("summary").click();
    // The server's refusal, in its words: a link-local address (the cloud metadata address) is never a destination.
    await page.getByTestId("destination-name").fill("metadata");
    await page.getByTestId("destination-url").fill("http://169.254.169.254/latest");
    await page.getByTestId("destination-submit").click();
    await page.getByTestId("destination-form").locator(".error").waitFor();
    assert.match(await page.getByTestId("destination-form").locator(".error").innerText(), /169\.254\.169\.254/);
    // A URL that is not http(s) is refused before it is sent.
    await page.getByTestId("destination-url").fill("ftp://127.0.0.1/");
    await page.getByTestId("destination-submit").click();
    await page.getByTestId("destination-form").getByText("http:// or https://").waitFor();

    await page.getByTestId("destination-name").fill("receiver");
    await page.getByTestId("destination-url").fill(receiver.url());
    await page.getByTestId("destination-submit").click();
    await page.getByTestId("secret-once").waitFor();
    assert.match(await page.getByTestId("secret-once").innerText(), /you will not see it again/i);
    secret = await page.getByTestId("secret-value").inputValue();
    assert.match(secret, /^[A-Za-z0-9_-]{43,}$/, "at least 32 random bytes, base64url");
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: test.url });
    await page.getByTestId("copy-secret").click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    await page.getByTestId("destination").filter({ hasText: "receiver" }).waitFor();

    const listed = await client.get("/api/alerts/destinations");
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.destinations.map((destination: { name: string }) => destination.name),
      ["receiver"],
    );
    assert.ok(!JSON.stringify(listed.body).includes(secret), "the list never answers a secret");
    await page.reload();
    await page.getByTestId("destination").filter({ hasText: "receiver" }).waitFor();
    assert.equal(await page.getByTestId("secret-once").count(), 0);
    assert.ok(!(await page.content()).includes(secret), "gone after a reload");

    // A Slack incoming webhook has no secret: nothing to show.
    await page.getByTestId("new-destination").locator("summary").click();
    await page.getByTestId("destination-name").fill("team-channel");
    await page.getByTestId("destination-kind").selectOption("slack");
    assert.equal(await page.getByTestId("destination-secret").count(), 0);
    await page.getByTestId("destination-url").fill(receiver.url("/slack"));
    await page.getByTestId("destination-submit").click();
    await page.getByTestId("destination").filter({ hasText: "team-channel" }).getByText("slack", { exact: true }).waitFor();
    assert.equal(await page.getByTestId("secret-once").count(), 0);

    // "send test" queues a test delivery through the outbox, delivered like any other.
    await page.getByTestId("destination").filter({ hasText: "receiver" }).getByTestId("test-destination").click();
    await page.getByText("Test queued").waitFor();
    await until("the test delivery", () => receiver.received.length === 1);
    assert.equal(JSON.parse(receiver.received[0]!.body).event.kind, "test");
    await page.getByTestId("outbox").getByLabel("delivered").check();
    await page.getByTestId("outbox").locator("[data-testid=delivery][data-status=delivered]").waitFor();
    await page.getByTestId("outbox").getByLabel("failed").check();
  });

  it("refuses an incomplete rule before sending it, then creates a threshold rule from the form", async () => {
    await page.getByTestId("new-rule").locator("summary").click();
    const form = page.getByTestId("new-rule").getByTestId("rule-form");
    // The server's checks, run in the page: the name's, and the condition's first refusal.
    await form.getByTestId("rule-submit").click();
    await form.getByTestId("problem-name").waitFor();
    assert.equal(await form.getByTestId("problem-value").innerText(), "must be a finite number");
    await form.getByTestId("rule-name").fill("loss too high");
    await form.getByTestId("rule-value").fill("5");
    await form.getByTestId("rule-consecutive").fill("0");
    await form.getByTestId("rule-submit").click();
    await form.getByTestId("problem-consecutive").waitFor();
    assert.equal(await form.getByTestId("problem-name").count(), 0);
    await form.getByTestId("rule-consecutive").fill("2");
    await form.getByTestId("rule-submit").click();
    await form.getByTestId("problem-metric").waitFor();
    assert.equal((await client.get("/api/alerts/rules", { projectName: PROJECT })).body.rules.length, 0, "nothing was sent");

    await form.getByTestId("rule-metric").fill("train/loss");
    await form.getByTestId("rule-destinations").getByLabel("receiver").check();
    await form.getByTestId("rule-submit").click();
    const row = page.getByTestId("alert-rule").filter({ hasText: "loss too high" });
    await row.waitFor();
    assert.equal(await row.getByTestId("rule-condition").innerText(), "when train/loss is above 5 for 2 consecutive points");
    assert.equal(await row.getByTestId("rule-notifies").innerText(), "→ receiver");
    const rules = (await client.get("/api/alerts/rules", { projectName: PROJECT })).body.rules;
    assert.equal(rules.length, 1);
    assert.deepEqual(rules[0].condition, { type: "threshold", metric: "train/loss", op: "above", value: 5, consecutive: 2 });
    assert.equal(rules[0].enabled, true);

    // What only the server's schema refuses (a fraction of a second) is sent, and its refusal shown in its words.
    await form.getByTestId("rule-name").fill("stalls");
    await form.getByTestId("rule-type").selectOption("stalled");
    await form.getByTestId("rule-after-seconds").fill("10.5");
    await form.getByTestId("rule-submit").click();
    await form.locator("p.error[role=alert]").waitFor();
    const refusal = await client.post("/api/alerts/rules", {
      projectName: PROJECT,
      name: "stalls",
      condition: { type: "stalled", afterSeconds: 10.5 },
      destinationIds: [],
    });
    assert.equal(refusal.status, 400);
    assert.equal(await form.locator("p.error[role=alert]").innerText(), refusal.body.error);
    assert.equal((await client.get("/api/alerts/rules", { projectName: PROJECT })).body.rules.length, 1);
    await form.getByTestId("rule-type").selectOption("threshold");
    await shot("95-alert-settings");
  });

  it("shows the event a crossing fires on the open run page and in the project's history, delivered and signed with the shown secret", async () => {
    // The run page is open before the rule fires: a RUNNING run's page reads its history again on its own.
    await page.goto(new URL(`/projects/${PROJECT}/runs/${run.runId}?tab=alerts`, test.url).toString());
    await page.getByTestId("run-alert-history").getByText("No alert rule fired for this run.").waitFor();
    await loss(6); // one point above: not yet (2 consecutive)
    await loss(7, 8);
    await until("the delivery", () => receiver.received.length === 2);
    const delivery = receiver.received[1]!;
    const timestamp = String(delivery.headers["x-stepwise-timestamp"]);
    const expected = `sha256=${createHmac("sha256", secret).update(`${timestamp}.${delivery.body}`).digest("hex")}`;
    assert.equal(delivery.headers["x-stepwise-signature"], expected, "signed with the secret the page showed");

    const event = page.getByTestId("run-alert-history").getByTestId("alert-event");
    await event.filter({ hasText: "loss too high" }).waitFor();
    await event.locator("[data-testid=delivery][data-status=delivered]").waitFor();
    assert.equal(await event.count(), 1);
    assert.equal(await event.locator("[data-testid=delivery]").getAttribute("data-delivery-id"), delivery.headers["x-stepwise-delivery"]);

    await page.goto(settings());
    const history = page.getByTestId("project-alert-history").getByTestId("alert-event");
    await history.locator("[data-testid=delivery][data-status=delivered]").waitFor();
    assert.equal(await history.getByRole("link", { name: "resnet-lr-0.1" }).getAttribute("href"), `/projects/${PROJECT}/runs/${run.runId}`);
  });

  it("shows a failing delivery's last error, then failed in Delivery status, and Retry delivers it", async () => {
    receiverStatus = 500;
    await loss(1); // back below: the rule re-arms
    await loss(9, 9); // fires again
    await until("a failed attempt", () => receiver.received.length >= 3);
    await page.goto(settings());
    const latest = page.getByTestId("project-alert-history").getByTestId("alert-event").first();
    await latest.getByTestId("delivery-error").waitFor();
    assert.match(await latest.getByTestId("delivery-error").innerText(), /500/);
    const deliveryId = await latest.getByTestId("delivery").getAttribute("data-delivery-id");

    const outbox = page.getByTestId("outbox");
    const failed = outbox.locator(`[data-testid=delivery][data-delivery-id='${deliveryId}'][data-status=failed]`);
    await failed.waitFor({ timeout: 30_000 }); // the outbox reads again until its attempts are used up
    await shot("96-delivery-failed");
    await page.getByTestId("project-settings").screenshot({ path: `${DOCS}alerts.png` });
    receiverStatus = 200;
    const attemptsBefore = receiver.received.length;
    await failed.getByTestId("retry-delivery").click();
    await until("the retried delivery", () => receiver.received.length > attemptsBefore);
    assert.equal(receiver.received.at(-1)!.headers["x-stepwise-delivery"], deliveryId, "the same delivery ID on retry");
    await outbox.getByLabel("delivered").check();
    await outbox.locator(`[data-testid=delivery][data-delivery-id='${deliveryId}'][data-status=delivered]`).waitFor();
  });

  it("turns a rule off, edits it and deletes it from its row; deletes a destination", async () => {
    const row = page.getByTestId("alert-rule").filter({ hasText: "loss too high" });
    await row.getByTestId("rule-enabled").uncheck();
    await until(
      "the rule off",
      async () => (await client.get("/api/alerts/rules", { projectName: PROJECT })).body.rules[0].enabled === false,
    );
    await row.getByTestId("edit-rule").click();
    await row.getByTestId("rule-op").selectOption("below");
    await row.getByTestId("rule-value").fill("0.5");
    await row.getByTestId("rule-submit").click();
    await row.getByTestId("rule-condition").filter({ hasText: "when train/loss is below 0.5 for 2 consecutive points" }).waitFor();
    await row.getByTestId("delete-rule").click();
    await row.waitFor({ state: "detached" });
    assert.equal((await client.get("/api/alerts/rules", { projectName: PROJECT })).body.rules.length, 0);

    await page.getByTestId("destination").filter({ hasText: "team-channel" }).getByTestId("delete-destination").click();
    await page.getByTestId("destination").filter({ hasText: "team-channel" }).waitFor({ state: "detached" });
    const names = (await client.get("/api/alerts/destinations")).body.destinations.map((destination: { name: string }) => destination.name);
    assert.deepEqual(names, ["receiver"]);
    assert.deepEqual(errors, []);
  });
  it("pages the project's history: 51 client alerts past a client-alert rule made in the form, 50 a page", async () => {
    const form = page.getByTestId("new-rule").getByTestId("rule-form");
    if (!(await form.isVisible())) await page.getByTestId("new-rule").locator("summary").click();
    await form.getByTestId("rule-name").fill("client warnings");
    await form.getByTestId("rule-type").selectOption("client_alert");
    await form.getByTestId("rule-min-level").selectOption("WARN");
    await form.getByTestId("rule-submit").click();
    const row = page.getByTestId("alert-rule").filter({ hasText: "client warnings" });
    assert.equal(await row.getByTestId("rule-condition").innerText(), "when the run's client sends an alert of level WARN or above");
    assert.equal(await row.getByTestId("rule-notifies").innerText(), "history only");

    const before = (await client.get("/api/alerts/events", { projectName: PROJECT, limit: 200 })).body.events.length;
    assert.equal(
      (await client.post("/api/runs/alert", { runId: run.runId, alert: { title: "below the level", body: "", level: "INFO" } })).status,
      200,
    );
    for (let i = 0; i < 51; i++)
      assert.equal(
        (await client.post("/api/runs/alert", { runId: run.runId, alert: { title: `warning ${i}`, body: "", level: "WARN" } })).status,
        200,
      );
    await until(
      "the events",
      async () => (await client.get("/api/alerts/events", { projectName: PROJECT, limit: 200 })).body.events.length === before + 51,
    );

    await page.goto(settings());
    const history = page.getByTestId("project-alert-history");
    await history.getByTestId("alert-event").first().waitFor();
    assert.equal(await history.getByTestId("alert-event").count(), 50);
    assert.match(await history.getByTestId("alert-event").first().innerText(), /warning 50/);
    await history.getByRole("button", { name: "Older →" }).click();
    await history.getByTestId("alert-event").filter({ hasText: "warning 0" }).waitFor();
    assert.equal(await history.getByTestId("alert-event").count(), before + 1);
    await history.getByRole("button", { name: "← Newer" }).click();
    await history.getByTestId("alert-event").filter({ hasText: "warning 50" }).waitFor();
    assert.ok(await history.getByRole("button", { name: "← Newer" }).isDisabled());
    assert.deepEqual(errors, []);
  });
});
