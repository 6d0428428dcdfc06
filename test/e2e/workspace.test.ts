/**
 * The project workspace end to end in headless Chromium against a real server: panels across the
 * runs of the table's selection, grouped train, val, then the rest; the run cap ("showing 20 of 25
 * runs"); run colours and the eye toggle (a hidden run leaves every panel and stays hidden after a
 * reload); an +Inf visible in its run's colour; a panel with two metrics; log scale, smoothing and
 * another metric as x; the sorted tooltip; full screen; zooming a panel on a dragged range and
 * back; moving a metric panel within its section; metric search on the workspace and the run page;
 * the workspace beside the table on a wide window (each pane scrolling on its own) and below it on
 * a narrow one; only panels on screen (in the workspace pane) fetch, one batch request per refresh.
 * Screenshots go to test-output/ui-screenshots/ (30-…).
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { bucketsForRuns } from "../../src/domain/metric-batch.js";
import { assignRunColors } from "../../web/src/lib/run-color.js";
import { launchBrowser } from "../helpers/browser.js";
import type { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));
const PROJECT = "sweep";
const RUNS = 25;
const EXTRA_GROUPS = 12; // sections after train and val, enough to push some panels off screen

const shot = (page: Page, name: string, fullPage = false) => page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage });

describe("the project workspace", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  let client: ApiClient;
  const ids: number[] = [];
  const errors: string[] = [];
  const batchBodies: { projectName: string; runIds: number[]; logNames: string[]; buckets: number }[] = [];
  const singleReads: string[] = [];
  const open = async (path: string) => {
    await page.goto(new URL(path, test.url).toString());
  };
  const panel = (id: string) => page.locator(`[data-testid=workspace] .ws-panel[data-panel='${id}']`);
  const drawn = (id: string) => panel(id).locator(".chart-canvas[data-drawn=true]");
  // The table's page (the only run list asking for divergedMetrics) held back until the test
  // releases it, as a slow server would (CI once); the workspace's own run list and metric names
  // are not held, so they arrive first.
  const holdTablePage = async (): Promise<() => void> => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname === "/api/runs/list" && url.searchParams.has("includeDiverged"),
      async (route) => {
        await released;
        await route.continue();
      },
    );
    return release;
  };
  const workspaceNames = () =>
    page.waitForResponse((response) => {
      const url = new URL(response.url());
      return url.pathname === "/api/runs/metric-names" && url.searchParams.has("runIds"); // the workspace's, not the column picker's
    });

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer();
    const org = await makeOrg(test);
    client = org.client;
    for (let r = 0; r < RUNS; r++) {
      const run = await client.createRun({ projectName: PROJECT, runName: `lr-${r}` });
      ids.push(run.runId);
      // The first run has 2,000 steps (downsampled: a min/max band) and a +Inf at step 700.
      const steps = r === 0 ? 2000 : 60;
      const lines = Array.from({ length: steps }, (_, step) => ({
        step,
        data: {
          "train/loss": r === 0 && step === 700 ? Infinity : (1 + r / 10) * Math.exp(-step / 40) + 0.05 * Math.sin(step),
          "train/acc": 1 - Math.exp(-step / (20 + r)),
          "val/loss": (1.2 + r / 10) * Math.exp(-step / 50),
          epoch: Math.floor(step / 10),
          ...Object.fromEntries(
            Array.from({ length: EXTRA_GROUPS }, (_, g) => [`group${String(g).padStart(2, "0")}/m`, g + r + step / 100]),
          ),
        },
      }));
      for (let i = 0; i < lines.length; i += 500)
        assert.equal((await ingest(client, "metrics", run, toNdjson(lines.slice(i, i + 500)))).status, 200);
      await client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED" });
    }
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("request", (request) => {
      if (request.method() === "POST" && new URL(request.url()).pathname === "/api/runs/metrics/batch")
        batchBodies.push(JSON.parse(request.postData() ?? "{}"));
      if (new URL(request.url()).pathname === "/api/runs/metrics") singleReads.push(request.url());
    });
    await open("/projects");
    await page.evaluate((key) => localStorage.setItem("stepwise.apiKey", key), org.key);
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("sits beside the table on a wide window: one panel per metric across the first 20 runs, train and val first, fetching only what the workspace pane shows", async () => {
    // Beside the table the charts need not wait for it: with the table's page held back, the
    // first panels are drawn while the table has no row yet.
    const releaseTable = await holdTablePage();
    await open(`/projects/${PROJECT}`);
    await drawn("train/loss").waitFor();
    assert.equal(await page.locator("[data-testid=runs-table] tr[data-run-id]").count(), 0, "drawn before the table's page came");
    releaseTable();
    await page.unrouteAll({ behavior: "wait" }); // the held request finishes first
    // Side by side: the table pane on the left, the workspace pane on the right, both within the
    // window (the page itself does not scroll; each pane does).
    const tableBox = (await page.locator(".runs-pane").boundingBox())!;
    const paneBox = (await page.locator(".workspace-pane").boundingBox())!;
    assert.ok(
      paneBox.x >= tableBox.x + tableBox.width,
      `the workspace right of the table (${paneBox.x} vs ${tableBox.x + tableBox.width})`,
    );
    assert.ok(tableBox.width < paneBox.width, "the table pane is the narrower");
    assert.ok(Math.abs(paneBox.y - tableBox.y) < 2, "side by side, not stacked");
    assert.ok(paneBox.y + paneBox.height <= 900, "the workspace pane ends within the window");
    assert.ok(
      await page.evaluate(() => document.documentElement.scrollHeight <= innerHeight + 1),
      "the page does not scroll: the panes do",
    );
    assert.equal(await page.getByTestId("workspace-count").innerText(), "showing 20 of 25 runs");
    const sections = await page
      .locator("[data-testid=workspace] details[data-section]")
      .evaluateAll((list) => list.map((d) => d.getAttribute("data-section")));
    assert.deepEqual(sections.slice(0, 3), ["train", "val", "group00"]);
    assert.equal(sections.at(-1), "", "the ungrouped (epoch) last");
    // The newest 20 runs (the table's order), every one drawn in the train/loss panel.
    const shown = (await panel("train/loss").getAttribute("data-runs"))!.split(",").map(Number);
    assert.equal(shown.length, 20);
    assert.equal(await drawn("train/loss").getAttribute("data-lines"), "20");
    // Every run's line is on the canvas in its colour (each line is drawn through its own points),
    // 20 runs in 20 distinct colours.
    const assigned = assignRunColors(shown, new Map(), false);
    const colours = new Set(shown.map((runId) => assigned.get(runId)!));
    assert.equal(colours.size, 20);
    const drawnColours = await drawn("train/loss")
      .locator("canvas")
      .evaluate(
        (canvas: HTMLCanvasElement, wanted: string[]) => {
          const { data } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
          const found = new Set<string>();
          for (let i = 0; i < data.length; i += 4) {
            // (No named helper: the test's TypeScript loader would wrap it in a function the page lacks.)
            const colour = `#${[data[i]!, data[i + 1]!, data[i + 2]!].map((n) => n.toString(16).padStart(2, "0")).join("")}`;
            if (data[i + 3] === 255 && wanted.includes(colour)) found.add(colour);
          }
          return [...found];
        },
        [...colours],
      );
    assert.ok(drawnColours.length >= Math.min(colours.size, 8), `lines drawn in ${drawnColours.length} of ${colours.size} run colours`);
    // The first panel on screen asked on its own, then one batch for the rest of what the pane
    // shows (and its 200 px look-ahead); the panels further down the pane were not asked for.
    await page.waitForTimeout(300); // a window for a third request that should not come: nothing to await
    assert.ok(batchBodies.length <= 2, `at most two batch requests, got ${batchBodies.length}`);
    const firstPanel = await page.locator("[data-testid=workspace] [data-panel]").first().getAttribute("data-panel");
    assert.deepEqual(batchBodies[0]!.logNames, [firstPanel], "the first panel's request comes first, alone");
    // The second batch (the other panels' series) leaves the first panel's chart as it was drawn.
    assert.equal(await drawn(firstPanel!).getAttribute("data-draws"), "1", "the first panel drawn once");
    const asked = batchBodies.flatMap((body) => body.logNames);
    assert.equal(new Set(asked).size, asked.length, `no metric asked twice: ${asked}`);
    assert.ok(!asked.includes("epoch"), `panels below the pane's view not fetched: ${asked}`);
    assert.ok(!asked.includes("group11/m"), `panels below the pane's view not fetched: ${asked}`);
    // The pane's look-ahead: a panel just below the pane's bottom edge is asked for, one far below is not.
    const unseen = await page.locator("[data-testid=workspace] .ws-panel").evaluateAll((list) => {
      const bottom = document.querySelector(".workspace-pane")!.getBoundingClientRect().bottom;
      return list.filter((p) => p.getBoundingClientRect().top > bottom + 250).map((p) => p.getAttribute("data-panel"));
    });
    assert.ok(unseen.length > 5, `panels far below the pane's view: ${unseen}`);
    for (const id of unseen) assert.ok(!asked.includes(id!), `${id} is below the pane's view, not fetched`);
    assert.deepEqual(singleReads, [], "no per-run metric reads");
    await shot(page, "30-workspace");
    // The look-ahead works within the pane: scrolled so a panel sits 100 px below the pane's
    // bottom edge, out of view, it is fetched and drawn already (a margin on the window would not
    // reach it: the pane clips it).
    const ahead = unseen[0]!;
    const below = await page.locator(".workspace-pane").evaluate((pane, id) => {
      const target = pane.querySelector(`[data-panel='${id}']`)!;
      pane.scrollTop += target.getBoundingClientRect().top - pane.getBoundingClientRect().bottom - 100;
      return target.getBoundingClientRect().top - pane.getBoundingClientRect().bottom;
    }, ahead);
    assert.ok(below > 50, `${ahead} is below the pane's view (${below} px)`);
    await drawn(ahead).waitFor();
    // Scrolling the pane (not the page) brings the last panels in, and only then are they fetched.
    const before = batchBodies.length;
    await page.locator(".workspace-pane").evaluate((pane) => {
      pane.scrollTop = pane.scrollHeight;
    });
    await drawn("epoch").waitFor();
    assert.ok(
      batchBodies.slice(before).some((body) => body.logNames.includes("epoch")),
      "epoch fetched once the pane scrolled to it",
    );
    assert.equal(await page.evaluate(() => scrollY), 0, "the page stayed put");
    await shot(page, "30-workspace-pane-scrolled");
    await page.locator(".workspace-pane").evaluate((pane) => {
      pane.scrollTop = 0;
    });

    await page.getByTestId("raise-cap").click();
    await page.waitForFunction(() => document.querySelector("[data-testid=workspace-count]")?.textContent === "showing 25 of 25 runs");
    await page.waitForFunction(
      () => document.querySelector("[data-panel='train/loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-lines") === "25",
    );
    assert.equal(await page.getByTestId("raise-cap").count(), 0, "nothing more to show");
  });

  it("stacks the workspace below the table on a narrow window, fetching nothing until it scrolls into view", async () => {
    // Narrow (below 1100 px) the workspace follows the table down the page, out of view at first:
    // a short window keeps it clearly below the panels' 200 px look-ahead.
    await page.setViewportSize({ width: 1000, height: 600 });
    const releaseTable = await holdTablePage();
    const before = batchBodies.length;
    const names = workspaceNames();
    await open(`/projects/${PROJECT}`);
    await names;
    await page.waitForTimeout(300); // a window for requests that should not come: nothing to await
    assert.equal(batchBodies.length, before, "no request before the table's first page");
    assert.equal(await page.getByTestId("workspace").count(), 0, "nor any chart shown");
    releaseTable();
    await page.getByTestId("workspace-count").waitFor();
    await page.waitForTimeout(300); // likewise
    assert.equal(batchBodies.length, before, "no panel on screen, no request");
    await page.unrouteAll({ behavior: "wait" }); // the held request finishes first
    const tableBox = (await page.getByTestId("runs-table").boundingBox())!;
    const workspaceBox = (await page.getByTestId("workspace").boundingBox())!;
    assert.ok(workspaceBox.y >= tableBox.y + tableBox.height, "the workspace below the table");
    await shot(page, "30-workspace-narrow", true);
    await page.getByTestId("workspace").evaluate((element) => element.scrollIntoView());
    await drawn("train/loss").waitFor();
    assert.equal(await drawn("train/loss").getAttribute("data-lines"), "25");
    const asked = batchBodies.slice(before).flatMap((body) => body.logNames);
    assert.ok(!asked.includes("epoch"), `off-screen panels not fetched: ${asked}`);
    await page.setViewportSize({ width: 1280, height: 900 });
    // Widened past 1,100 px the workspace moves beside the table, into its scrolling pane: the panels'
    // observers are made anew with the pane as root, so the look-ahead reaches a panel just below
    // the pane's edge (an observer left rooted at the window would not: the pane clips it).
    await page.waitForFunction(() => getComputedStyle(document.querySelector(".workspace-pane")!).overflowY !== "visible");
    await page.waitForTimeout(300);
    const ahead = await page.locator(".workspace-pane").evaluate((pane) => {
      const bottom = pane.getBoundingClientRect().bottom;
      const target = [...pane.querySelectorAll<HTMLElement>(".ws-panel")].find((p) => p.getBoundingClientRect().top > bottom + 250)!;
      pane.scrollTop += target.getBoundingClientRect().top - bottom - 100;
      return target.dataset.panel!;
    });
    await drawn(ahead).waitFor({ timeout: 5000 });
  });

  it("draws the +Inf of a 2,000-step series in its run's colour, with a min/max band where it is downsampled", async () => {
    await panel("train/loss").scrollIntoViewIfNeeded();
    await drawn("train/loss").waitFor();
    const canvas = drawn("train/loss");
    assert.ok(Number(await canvas.getAttribute("data-nonfinite")) >= 1, "the +Inf is kept");
    // The runs drawn are coloured as a set (the workspace's runs, hidden ones included).
    const drawnRuns = (await panel("train/loss").getAttribute("data-runs"))!.split(",").map(Number);
    const colourOfFirst = assignRunColors(drawnRuns, new Map(), false).get(ids[0]!);
    assert.equal(await canvas.getAttribute("data-marker-colors"), colourOfFirst);
    assert.equal(await canvas.getAttribute("data-bands"), "1", "a band for the one downsampled series (2,000 steps at 250 buckets)");
    // The run's table swatch has the same colour.
    assert.equal(
      await page.locator(`[data-testid=runs-table] tr[data-run-id='${ids[0]}'] .swatch`).getAttribute("data-color"),
      colourOfFirst,
    );
    await panel("train/loss").scrollIntoViewIfNeeded();
    await shot(page, "31-workspace-inf-band");
  });

  it("hides a run from every panel with the table's eye, and keeps it hidden after a reload", async () => {
    const victim = ids[3]!;
    await page.locator(`[data-testid=runs-table] tr[data-run-id='${victim}'] [data-testid=run-eye]`).click();
    await page.waitForFunction(
      (id) =>
        [...document.querySelectorAll("[data-testid=workspace] .ws-panel")].every(
          (panel) => !(panel as HTMLElement).dataset.runs!.split(",").includes(String(id)),
        ),
      victim,
    );
    await page.waitForFunction(
      () => document.querySelector("[data-panel='train/loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-lines") === "24",
    );
    assert.match(await page.getByTestId("workspace-count").innerText(), /showing 25 of 25 runs \(1 hidden/);
    await page.reload();
    await panel("val/loss").scrollIntoViewIfNeeded();
    await drawn("val/loss").waitFor();
    assert.equal(await drawn("val/loss").getAttribute("data-lines"), "24");
    assert.ok(!(await panel("val/loss").getAttribute("data-runs"))!.split(",").includes(String(victim)));
    assert.equal(
      await page.locator(`[data-testid=runs-table] tr[data-run-id='${victim}'] [data-testid=run-eye]`).getAttribute("aria-pressed"),
      "true",
    );
    await shot(page, "32-hidden-run");
    // Shown again.
    await page.locator(`[data-testid=runs-table] tr[data-run-id='${victim}'] [data-testid=run-eye]`).click();
    await page.waitForFunction(
      () => document.querySelector("[data-panel='val/loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-lines") === "25",
    );
  });

  it("adds a panel with train/loss and val/loss together, first, and keeps it after a reload", async () => {
    await page.getByTestId("add-panel").click();
    // Plain clicks, no modifier keys: each ticks one more metric.
    await page.getByTestId("add-panel-metrics").getByLabel("train/loss").check();
    await page.getByTestId("add-panel-metrics").getByLabel("val/loss").check();
    await shot(page, "37-add-panel-picker");
    await page.getByTestId("add-panel-confirm").click();
    const custom = panel("custom:1");
    await custom.locator(".chart-canvas[data-drawn=true]").waitFor();
    assert.equal(await custom.locator(".chart-canvas").getAttribute("data-lines"), "50", "25 runs × 2 metrics");
    const first = await page.locator("[data-testid=workspace] details[data-section]").first().getAttribute("data-section");
    assert.equal(first, "Custom panels");
    await page.reload();
    await panel("custom:1").scrollIntoViewIfNeeded();
    await panel("custom:1").locator(".chart-canvas[data-drawn=true]").waitFor();
    await panel("custom:1").scrollIntoViewIfNeeded();
    await shot(page, "33-two-metric-panel");
  });

  it("sets a panel's log scale, smoothing and x axis (epoch), kept per project after a reload", async () => {
    const valLoss = panel("val/loss");
    // After the last test's reload the view sits at the custom panel; val/loss may be below it.
    await valLoss.scrollIntoViewIfNeeded();
    const ticksBefore = await drawn("val/loss").getAttribute("data-y-ticks");
    await valLoss.getByLabel("log").check();
    await page.waitForFunction(
      (before) => document.querySelector("[data-panel='val/loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-y-ticks") !== before,
      ticksBefore,
    );
    await valLoss.getByLabel("smoothing").selectOption("0.9");
    await valLoss.getByLabel("x axis").selectOption("metric:epoch");
    await page.reload();
    await panel("val/loss").scrollIntoViewIfNeeded();
    await drawn("val/loss").waitFor();
    assert.ok(await panel("val/loss").getByLabel("log").isChecked());
    assert.equal(await panel("val/loss").getByLabel("smoothing").inputValue(), "0.9");
    assert.equal(await panel("val/loss").getByLabel("x axis").inputValue(), "metric:epoch");
    // Smoothed: one solid line per run (the raw one is faint behind it and not in the tooltip).
    assert.equal(await drawn("val/loss").getAttribute("data-lines"), "25");
    const stored = await page.evaluate((key) => JSON.parse(localStorage.getItem(key)!), `stepwise.workspace.${PROJECT}`);
    assert.deepEqual(stored.options.find(([id]: [string]) => id === "val/loss")[1], {
      logScale: true,
      smoothing: 0.9,
      xAxis: "metric",
      xMetric: "epoch",
      clipY: false,
    });
    await panel("val/loss").scrollIntoViewIfNeeded();
    await shot(page, "34-log-smoothing-epoch");
  });

  it("lists the runs sorted by value in the tooltip and opens a panel full screen", async () => {
    const target = panel("train/acc");
    await target.scrollIntoViewIfNeeded();
    await drawn("train/acc").waitFor();
    const box = (await target.locator(".u-over").boundingBox())!;
    // Near step 20, where every run has points (one run goes on to step 2,000).
    await page.mouse.move(box.x + box.width * 0.01, box.y + box.height / 2);
    const tooltip = target.getByTestId("chart-tooltip");
    await tooltip.waitFor();
    const values = await tooltip.locator(".tooltip-value").evaluateAll((cells) => cells.map((cell) => Number(cell.textContent)));
    assert.ok(values.length >= 20, `${values.length} rows`);
    assert.deepEqual(
      values,
      [...values].sort((a, b) => b - a),
      "highest first",
    );
    await shot(page, "35-tooltip");
    await target.getByTestId("panel-fullscreen").click();
    await page.locator(".ws-panel-full .chart-canvas[data-drawn=true]").waitFor();
    const full = (await page.locator(".ws-panel-full").boundingBox())!;
    assert.ok(full.width > 1200 && full.height > 800, `full screen: ${full.width}×${full.height}`);
    await shot(page, "36-fullscreen");
    await page.keyboard.press("Escape");
    await page.locator(".ws-panel-full").waitFor({ state: "detached" });
  });

  it("zooms a panel on a dragged x range, reading that step window again at full resolution, and goes back on a double-click", async () => {
    const target = panel("train/loss");
    await target.scrollIntoViewIfNeeded();
    await drawn("train/loss").waitFor();
    const whole = Number(await drawn("train/loss").getAttribute("data-points"));
    assert.equal(await drawn("train/loss").getAttribute("data-bands"), "1", "2,000 steps are downsampled");
    const before = batchBodies.length;
    const over = target.locator(".u-over");
    const box = (await over.boundingBox())!;
    // The x axis runs over run 0's 2,000 steps: drag across about steps 200 to 600.
    await page.mouse.move(box.x + box.width * 0.1, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(() => document.querySelector("[data-panel='train/loss']")?.hasAttribute("data-zoomed"));
    const [stepMin, stepMax] = (await target.getAttribute("data-zoomed"))!.split("-").map(Number) as [number, number];
    assert.ok(stepMin > 100 && stepMax < 700 && stepMin < stepMax, `a window inside the drag: ${stepMin}-${stepMax}`);
    const zoomRequests = batchBodies.slice(before);
    assert.equal(zoomRequests.length, 1, "one batch request for the window");
    assert.deepEqual(zoomRequests[0], {
      projectName: PROJECT,
      runIds: (await target.getAttribute("data-runs"))!.split(",").map(Number),
      logNames: ["train/loss"],
      stepMin,
      stepMax,
      buckets: 250,
    });
    // Full resolution: every step of the window is drawn (run 0 alone reaches it), and no band.
    await page.waitForFunction(
      (points) =>
        document.querySelector("[data-panel='train/loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-points") === points,
      String(stepMax - stepMin + 1),
    );
    assert.equal(await drawn("train/loss").getAttribute("data-bands"), "0");
    assert.equal(await drawn("train/loss").getAttribute("data-lines"), "1", "only run 0 has steps there");
    await target.scrollIntoViewIfNeeded();
    await shot(page, "38-panel-zoomed");
    await over.dblclick();
    await page.waitForFunction(() => !document.querySelector("[data-panel='train/loss']")?.hasAttribute("data-zoomed"));
    await page.waitForFunction(
      (points) =>
        document.querySelector("[data-panel='train/loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-points") === points,
      String(whole),
    );
    assert.equal(batchBodies.length, before + 1, "going back reads nothing again");

    // Against another metric (val/loss by epoch, set above) the window is the steps drawn in the range.
    const byEpoch = panel("val/loss");
    await byEpoch.scrollIntoViewIfNeeded();
    await drawn("val/loss").waitFor();
    const epochBox = (await byEpoch.locator(".u-over").boundingBox())!;
    await page.mouse.move(epochBox.x + epochBox.width * 0.2, epochBox.y + epochBox.height / 2);
    await page.mouse.down();
    await page.mouse.move(epochBox.x + epochBox.width * 0.6, epochBox.y + epochBox.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(() => document.querySelector("[data-panel='val/loss']")?.hasAttribute("data-zoomed"));
    const epochRequest = batchBodies.at(-1)!;
    assert.deepEqual(epochRequest.logNames, ["val/loss", "epoch"], "the x metric is read with it");
    const [epochMin, epochMax] = (await byEpoch.getAttribute("data-zoomed"))!.split("-").map(Number) as [number, number];
    assert.ok(epochMin > 0 && epochMax < 1999 && epochMin < epochMax, `${epochMin}-${epochMax}`);
    await drawn("val/loss").waitFor();
    await byEpoch.getByTestId("panel-unzoom").click();
    await page.waitForFunction(() => !document.querySelector("[data-panel='val/loss']")?.hasAttribute("data-zoomed"));
  });

  it("moves a metric panel within its section, kept after a reload", async () => {
    const order = () =>
      page
        .locator("[data-testid=workspace] details[data-section='train'] .ws-panel")
        .evaluateAll((list) => list.map((p) => p.getAttribute("data-panel")));
    assert.deepEqual(await order(), ["train/acc", "train/loss"]);
    assert.ok(await panel("train/acc").getByLabel("Move panel earlier").isDisabled(), "the first cannot go earlier");
    await panel("train/acc").getByLabel("Move panel later").click();
    assert.deepEqual(await order(), ["train/loss", "train/acc"]);
    assert.ok(await panel("train/acc").getByLabel("Move panel later").isDisabled(), "the last cannot go later");
    await page.reload();
    await page.locator("[data-testid=workspace] details[data-section='train'] .ws-panel").first().waitFor();
    assert.deepEqual(await order(), ["train/loss", "train/acc"]);
    const stored = await page.evaluate((key) => JSON.parse(localStorage.getItem(key)!), `stepwise.workspace.${PROJECT}`);
    assert.deepEqual(stored.order, ["train/loss", "train/acc"]);
    await panel("train/acc").scrollIntoViewIfNeeded();
    await shot(page, "39-panel-moved");
    // Back where it was, for the cases below.
    await panel("train/acc").getByLabel("Move panel earlier").click();
    assert.deepEqual(await order(), ["train/acc", "train/loss"]);
  });

  it("refreshes while a shown run is RUNNING, one batch request per refresh", async () => {
    const live = await client.createRun({ projectName: "live-sweep", runName: "running" });
    const points = (from: number) =>
      toNdjson(Array.from({ length: 10 }, (_, i) => ({ step: from + i, data: { loss: 1 / (from + i + 1) } })));
    assert.equal((await ingest(client, "metrics", live, points(0))).status, 200);
    await open("/projects/live-sweep");
    await panel("loss").scrollIntoViewIfNeeded();
    await page.waitForFunction(
      () => document.querySelector("[data-panel='loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-points") === "10",
    );
    const before = batchBodies.length;
    assert.equal((await ingest(client, "metrics", live, points(10))).status, 200);
    await page.waitForFunction(
      () => document.querySelector("[data-panel='loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-points") === "20",
      undefined,
      { timeout: 15_000 },
    );
    assert.ok(batchBodies.length - before <= 2, `${batchBodies.length - before} batch requests for the refreshes`);
    // Only the steps from the last one loaded (chart-marks.test.ts counts what such a refresh costs).
    assert.deepEqual(batchBodies.at(-1), { projectName: "live-sweep", runIds: [live.runId], logNames: ["loss"], buckets: 250, stepMin: 9 });
  });

  it("filters panels by a plain substring on the workspace and on the run page, whose sections follow the workspace's order", async () => {
    await open(`/projects/${PROJECT}`);
    await page.getByTestId("workspace").evaluate((element) => element.scrollIntoView());
    await page.getByTestId("workspace-search").fill("LOSS");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=workspace] .ws-panel").length === 3);
    const shownPanels = await page
      .locator("[data-testid=workspace] .ws-panel")
      .evaluateAll((list) => list.map((p) => p.getAttribute("data-panel")));
    assert.deepEqual(shownPanels, ["custom:1", "train/loss", "val/loss"]);
    await page.getByTestId("workspace-search").fill("group0.");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=workspace] .ws-panel").length === 0);
    await page.getByTestId("workspace-search").fill("");

    await open(`/projects/${PROJECT}/runs/${ids[1]}`);
    await page.locator("details.chart-group").first().waitFor();
    // The run page draws the run in its colour.
    await page.locator(".chart-card[data-metric='train/loss'] .chart-canvas[data-drawn=true]").waitFor();
    const sections = await page.locator("details.chart-group").evaluateAll((list) => list.map((d) => d.getAttribute("data-section")));
    assert.deepEqual(sections.slice(0, 3), ["train", "val", "group00"]);
    assert.equal(sections.at(-1), "");
    await page.getByPlaceholder(/Filter \d+ metrics/).fill("loss");
    await page.waitForFunction(() => document.querySelectorAll(".chart-card[data-metric]").length === 2);
    await shot(page, "37-run-page-search");
    assert.deepEqual(errors, []);
  });

  it("reads every shown run again at fewer buckets once more than 50 runs are shown, never mixing bucket counts", async () => {
    const project = "wide-sweep";
    const sweep: number[] = [];
    for (let r = 0; r < 60; r++) {
      const run = await client.createRun({ projectName: project, runName: `s-${r}` });
      sweep.push(run.runId);
      assert.equal((await ingest(client, "metrics", run, toNdjson([{ step: 0, data: { loss: r } }]))).status, 200);
      // Finished: a RUNNING run's live refresh would send batches of its own meanwhile.
      await client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED" });
    }
    await open(`/projects/${project}`);
    await page.waitForFunction(
      () => document.querySelector("[data-panel='loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-lines") === "20",
    );
    await page.getByTestId("raise-cap").click(); // 50 runs: still 250 buckets
    await page.waitForFunction(
      () => document.querySelector("[data-panel='loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-lines") === "50",
    );
    const before = batchBodies.length;
    await page.getByTestId("raise-cap").click(); // 60 runs: fewer buckets
    await page.waitForFunction(
      () => document.querySelector("[data-panel='loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-lines") === "60",
    );
    const asked = batchBodies.slice(before).filter((body) => body.projectName === project);
    assert.ok(bucketsForRuns(60) < 250, "60 runs read at fewer buckets");
    assert.deepEqual(
      asked.map((body) => body.buckets),
      asked.map(() => bucketsForRuns(60)),
      "every batch after the raise at the new bucket count",
    );
    assert.ok(asked.length > 0, "the raise asked for series");
    // The 50 runs loaded at 250 buckets are read again at the new count with the 10 new ones.
    assert.deepEqual(new Set(asked.flatMap((body) => body.runIds)), new Set(sweep));
    assert.deepEqual(errors, []);
  });
});
