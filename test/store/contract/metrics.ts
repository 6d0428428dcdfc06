import assert from "node:assert/strict";
import { it } from "node:test";
import { MAX_METRICS_PER_RUN } from "../../../src/domain/log-names.js";
import type { AccountStore, MetricStore, RunStore } from "../../../src/store/store.js";
import { ACTOR, newOrg, newRun, rejectsWith, runInput, T0 } from "./backends.js";

/**
 * MetricStore: appending metric points (last write wins per step, a batch whole or not at all, the
 * bound on a run's metrics, metric names added to the run's log names), reading them, their
 * summaries, and values inherited through a fork's lineage. Fixtures: runs and forks (RunStore) in
 * organizations (AccountStore).
 */
export function metricContract(store: () => MetricStore & RunStore & AccountStore): void {
  // Appends.
  it("refuses a metric batch that would give a run more than MAX_METRICS_PER_RUN metrics, writing none of it", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s);
    const series = (names: string[]) => names.map((logName) => ({ logName, steps: [0], values: [1], times: [T0] }));
    const names = Array.from({ length: MAX_METRICS_PER_RUN - 1 }, (_, i) => `m${i}`);
    assert.equal(await s.appendMetricPoints(orgId, runId, series(names), T0), MAX_METRICS_PER_RUN - 1);
    await rejectsWith(s.appendMetricPoints(orgId, runId, series(["m0", "new-1", "new-2"]), T0), "INVALID_INPUT");
    assert.equal((await s.listMetricSummaries(orgId, runId)).length, MAX_METRICS_PER_RUN - 1, "nothing of the refused batch");
    assert.equal(await s.appendMetricPoints(orgId, runId, series(["m0", "new-1"]), T0 + 1), 2, "up to the bound, existing names too");
    assert.equal(await s.appendMetricPoints(orgId, runId, series(["m1"]), T0 + 1), 1, "a full run still takes points");
  });

  it("lists a metric's name as METRIC from its first points on (keeping a type the name already had), and in its project's names", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s);
    assert.equal(await s.addLogNames(orgId, runId, ["shared"], "DATA", T0), true);
    const points = (logName: string, step: number) => ({ logName, steps: [step], values: [step], times: [T0] });
    await s.appendMetricPoints(orgId, runId, [points("train/loss", 0), points("shared", 0)], T0 + 1);
    // Later batches write to metrics that exist, and one creates a metric beside them.
    await s.appendMetricPoints(orgId, runId, [points("train/loss", 1), points("acc", 1)], T0 + 2);
    await s.appendMetricPoints(orgId, runId, [points("train/loss", 2), points("acc", 2), points("shared", 2)], T0 + 3);
    const names = (await s.listLogNames(orgId, runId)).sort((x, y) => x.logName.localeCompare(y.logName));
    assert.deepEqual(names, [
      { logName: "acc", logType: "METRIC", logGroup: null },
      { logName: "shared", logType: "DATA", logGroup: null },
      { logName: "train/loss", logType: "METRIC", logGroup: "train" },
    ]);
    const { projectId } = (await s.getRun(orgId, runId))!;
    assert.deepEqual(await s.listMetricNames(orgId, projectId, { limit: 10 }), ["acc", "shared", "train/loss"], "the project's names too");
  });

  it("writes a batch naming one metric twice as two batches, in order", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    const accepted = await s.appendMetricPoints(
      orgId,
      run.id,
      [
        { logName: "loss", steps: [1, 2, 3], values: [1, 2, 3], times: [T0, T0, T0] },
        { logName: "acc", steps: [1], values: [0.5], times: [T0] },
        { logName: "loss", steps: [3, 4], values: [30, 40], times: [T0, T0] },
      ],
      T0,
    );
    assert.equal(accepted, 6);
    const points = await s.readMetricPoints(orgId, run.id, "loss", 0, Number.MAX_SAFE_INTEGER);
    assert.deepEqual(
      points.map((p) => [p.step, p.value]),
      [
        [1, 1],
        [2, 2],
        [3, 30],
        [4, 40],
      ],
    );
    const [summary] = await s.listMetricSummaries(orgId, run.id, { logName: "loss" });
    assert.equal(summary!.count, 4);
    assert.equal(summary!.max, 40);
    assert.equal(summary!.mean, (1 + 2 + 30 + 40) / 4);
  });

  it("merges into a chunk whose last step goes on in the next chunk, keeping the point order (MLflow's rule)", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    // Steps 0-4, then 600 points at step 5: the first chunk ends at step 5, the second holds only step 5.
    const steps = [0, 1, 2, 3, 4, ...Array.from({ length: 600 }, () => 5)];
    const times = steps.map((_, i) => T0 + i);
    const rule = "keep-every-point" as const;
    await s.appendMetricPoints(orgId, run.id, [{ logName: "loss", steps, values: times.map((_, i) => i), times, rule }], T0);
    // A second point at step 2 rewrites the first chunk; it must still come before the second.
    await s.appendMetricPoints(orgId, run.id, [{ logName: "loss", steps: [2], values: [-1], times: [T0 + 10_000], rule }], T0);
    const points = await s.readMetricPoints(orgId, run.id, "loss", 0, Number.MAX_SAFE_INTEGER);
    assert.equal(points.length, 606);
    assert.deepEqual(
      points.slice(0, 5).map((p) => [p.step, p.value]),
      [
        [0, 0],
        [1, 1],
        [2, 2],
        [2, -1],
        [3, 3],
      ],
    );
    assert.deepEqual(
      points.slice(6).map((p) => p.time),
      times.slice(5),
    );
  });

  // Summaries and last values, through forks.
  it("keeps the client time of each metric's last point with its summary; none for a fork's inherited points", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const runId = (await s.createRun(orgId, runInput(), ACTOR)).run.id;
    const write = (steps: number[], times: number[]) =>
      s.appendMetricPoints(orgId, runId, [{ logName: "m", steps, values: times, times }], T0);
    const lastTime = async (id = runId) => (await s.listMetricSummaries(orgId, id)).map((summary) => [summary.lastStep, summary.lastTime]);
    await write([0, 1, 2], [10, 11, 12]);
    assert.deepEqual(await lastTime(), [[2, 12]], "an append");
    await write([2], [20]);
    assert.deepEqual(await lastTime(), [[2, 20]], "the last step written again");
    await write([0, 1], [30, 31]);
    assert.deepEqual(await lastTime(), [[2, 20]], "earlier steps leave it");
    await write([1, 3], [40, 41]);
    assert.deepEqual(await lastTime(), [[3, 41]], "a write past the end and before it");
    const fork = { runId, step: 1, inheritConfig: false, inheritTags: false };
    const child = (await s.createRun(orgId, runInput({ name: "child", fork }), ACTOR)).run.id;
    assert.deepEqual(await lastTime(child), [[1, null]], "a lineage's summary: the point must be read");
    assert.deepEqual((await s.listMetricSummariesOfRuns(orgId, [runId])).get(runId)![0]!.lastTime, 41);
  });

  it("lists the metric summaries of many runs at once, as listMetricSummaries does for each, forks included", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const other = await newOrg(s);
    const series = (logName: string, values: number[]) => ({
      logName,
      steps: values.map((_, i) => i),
      values,
      times: values.map(() => T0),
    });
    const parent = (await s.createRun(orgId, runInput({ name: "parent" }), ACTOR)).run.id;
    await s.appendMetricPoints(orgId, parent, [series("loss", [3, 2, 1, Number.NaN]), series("acc", [0.1, 0.2])], T0);
    const fork = { runId: parent, step: 1, inheritConfig: false, inheritTags: false };
    const child = (await s.createRun(orgId, runInput({ name: "child", fork }), ACTOR)).run.id;
    await s.appendMetricPoints(orgId, child, [series("lr", [0.5])], T0);
    const empty = (await s.createRun(orgId, runInput({ name: "empty" }), ACTOR)).run.id;
    const foreign = (await s.createRun(other, runInput({ name: "foreign" }), ACTOR)).run.id;

    const all = await s.listMetricSummariesOfRuns(orgId, [child, 999_999_999, parent, foreign, empty]);
    assert.deepEqual([...all.keys()].sort(), [parent, child, empty].sort(), "unknown and foreign runs left out");
    for (const runId of [parent, child, empty]) assert.deepEqual(all.get(runId), await s.listMetricSummaries(orgId, runId));
    assert.deepEqual(
      all.get(child)!.map((summary) => [summary.logName, summary.count]),
      [
        ["acc", 2],
        ["loss", 2],
        ["lr", 1],
      ],
      "the child's own metric and its parent's up to the fork step",
    );
    assert.deepEqual(await s.listMetricSummariesOfRuns(other, [parent, child]), new Map());
    assert.deepEqual(await s.listMetricSummariesOfRuns(orgId, []), new Map());
  });

  it("counts each run's own metrics, leaving out a fork's inherited ones, runs without metrics and unknown or foreign runs", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const other = await newOrg(s);
    const series = (logName: string) => ({ logName, steps: [0, 1, 2], values: [1, 2, 3], times: [T0, T0, T0] });
    const parent = (await s.createRun(orgId, runInput({ name: "parent" }), ACTOR)).run.id;
    await s.appendMetricPoints(orgId, parent, [series("loss"), series("acc"), series("train/lr")], T0);
    const fork = { runId: parent, step: 1, inheritConfig: false, inheritTags: false };
    const child = (await s.createRun(orgId, runInput({ name: "child", fork }), ACTOR)).run.id;
    await s.appendMetricPoints(orgId, child, [series("loss"), series("grad")], T0);
    const inheritsOnly = (await s.createRun(orgId, runInput({ name: "inherits-only", fork }), ACTOR)).run.id;
    const empty = (await s.createRun(orgId, runInput({ name: "empty" }), ACTOR)).run.id;
    const foreign = (await s.createRun(other, runInput({ name: "foreign" }), ACTOR)).run.id;
    await s.appendMetricPoints(other, foreign, [series("loss")], T0);
    assert.equal((await s.listMetricSummaries(orgId, inheritsOnly)).length, 3, "the fork reads its parent's metrics");

    const counts = await s.countMetricsOfRuns(orgId, [child, 999_999_999, parent, foreign, empty, inheritsOnly]);
    assert.deepEqual(
      Object.fromEntries(counts),
      { [parent]: 3, [child]: 2 },
      "the child's own two (its loss as one, though the parent has one too), none inherited; no key for a run without metrics of its own, an unknown or a foreign run",
    );
    assert.deepEqual(await s.countMetricsOfRuns(other, [parent, child]), new Map(), "another organization's runs are absent");
    assert.deepEqual(Object.fromEntries(await s.countMetricsOfRuns(other, [foreign, parent])), { [foreign]: 1 });
    assert.deepEqual(await s.countMetricsOfRuns(orgId, []), new Map());
  });

  it("gives the LAST finite value per run, inherited through a fork", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run: parent } = await s.createRun(orgId, runInput(), ACTOR);
    await s.appendMetricPoints(
      orgId,
      parent.id,
      [{ logName: "loss", steps: [0, 1, 2, 3], values: [4, 3, NaN, 1], times: [0, 0, 0, 0] }],
      T0,
    );
    const { run: child } = await s.createRun(
      orgId,
      runInput({ fork: { runId: parent.id, step: 2, inheritConfig: true, inheritTags: false } }),
      ACTOR,
    );
    const { run: silent } = await s.createRun(orgId, runInput(), ACTOR);
    const values = await s.listRunLastValues(orgId, parent.projectId, "loss");
    assert.deepEqual(
      Object.fromEntries(values),
      { [parent.id]: 1, [child.id]: 3 },
      "the child's last finite value at or below the fork step",
    );
    assert.ok(!values.has(silent.id));
  });

  // Many writers at once (WRITERS, backends.ts).
  it("keeps every point and an exact summary when writers append to and overwrite one metric at once", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    const writers = 4;
    const batches = 12;
    const perBatch = 40;
    const expected = new Map<number, number>();
    // Writer w owns steps ≡ w (mod writers): batches of different writers overlap in step range,
    // so most appends take the merge path; each writer then overwrites some of its own steps.
    const write = async (w: number) => {
      for (let b = 0; b < batches; b++) {
        const steps = Array.from({ length: perBatch }, (_, k) => (b * perBatch + k) * writers + w);
        const values = steps.map((step) => Math.sin(step) * 100);
        for (const [k, step] of steps.entries()) expected.set(step, values[k]!);
        await s.appendMetricPoints(orgId, run.id, [{ logName: "loss", steps, values, times: steps.map(() => T0) }], T0 + b);
      }
      const again = Array.from({ length: perBatch }, (_, k) => k * 3 * writers + w);
      const values = again.map((step) => -step - 1000);
      for (const [k, step] of again.entries()) expected.set(step, values[k]!);
      await s.appendMetricPoints(orgId, run.id, [{ logName: "loss", steps: again, values, times: again.map(() => T0) }], T0 + batches);
    };
    await Promise.all(Array.from({ length: writers }, (_, w) => write(w)));

    const points = await s.readMetricPoints(orgId, run.id, "loss", 0, Number.MAX_SAFE_INTEGER);
    assert.deepEqual(
      points.map((p) => [p.step, p.value]),
      [...expected].sort((a, b) => a[0] - b[0]),
    );
    const [summary] = await s.listMetricSummaries(orgId, run.id, { logName: "loss" });
    const values = points.map((p) => p.value);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    assert.equal(summary!.count, values.length);
    assert.equal(summary!.min, Math.min(...values));
    assert.equal(summary!.max, Math.max(...values));
    assert.ok(Math.abs(summary!.mean - mean) < 1e-9 * Math.max(1, Math.abs(mean)), `mean ${summary!.mean} vs ${mean}`);
    assert.equal(summary!.firstStep, points[0]!.step);
    assert.equal(summary!.lastStep, points[points.length - 1]!.step);
    assert.equal(summary!.lastValue, points[points.length - 1]!.value);
  });

  it("keeps every metric of concurrent many-metric batches exact, whatever order the batches name them in", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    const names = ["a/loss", "a/acc", "b/lr", "b/norm", "c", "d/e/f"];
    const writers = 4;
    const batches = 8;
    const perBatch = 20;
    const expected = new Map(names.map((name) => [name, new Map<number, number>()]));
    // Every batch names every metric, each writer in its own order: a batch locks all of them at
    // once, so the locks must be taken in one order or two batches deadlock. Writer w owns steps
    // ≡ w (mod writers), so batches of different writers overlap in step range.
    const write = async (w: number) => {
      const order = w % 2 === 0 ? names : [...names].reverse();
      for (let b = 0; b < batches; b++) {
        const series = order.map((logName, m) => {
          const steps = Array.from({ length: perBatch }, (_, k) => (b * perBatch + k) * writers + w);
          const values = steps.map((step) => Math.cos(step + m) * (m + 1));
          for (const [k, step] of steps.entries()) expected.get(logName)!.set(step, values[k]!);
          return { logName, steps, values, times: steps.map(() => T0) };
        });
        await s.appendMetricPoints(orgId, run.id, series, T0 + b);
      }
    };
    await Promise.all(Array.from({ length: writers }, (_, w) => write(w)));

    const summaries = new Map((await s.listMetricSummaries(orgId, run.id)).map((summary) => [summary.logName, summary]));
    for (const name of names) {
      const points = await s.readMetricPoints(orgId, run.id, name, 0, Number.MAX_SAFE_INTEGER);
      assert.deepEqual(
        points.map((p) => [p.step, p.value]),
        [...expected.get(name)!].sort((a, b) => a[0] - b[0]),
        name,
      );
      const values = points.map((p) => p.value);
      const summary = summaries.get(name)!;
      assert.equal(summary.count, values.length, name);
      assert.equal(summary.min, Math.min(...values), name);
      assert.equal(summary.max, Math.max(...values), name);
      assert.equal(summary.lastValue, values[values.length - 1], name);
    }
  });

  it("stores concurrent metric appends to many runs exactly; one that fails midway leaves nothing and fails no other", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => s.createRun(orgId, runInput({ name: `m${i}` }), ACTOR)));
    const series = (logName: string, from: number) => ({
      logName,
      steps: Array.from({ length: 100 }, (_, k) => from + k),
      values: Array.from({ length: 100 }, (_, k) => from + k),
      times: Array.from({ length: 100 }, () => T0),
    });
    const bad = runs[3]!.run.id;
    // The failing write's first series is valid: a write that is not rolled back as a whole leaves it behind.
    const broken = [series("kept-if-half-written", 0), { ...series("x", 0), logName: Symbol("not a name") as never }];
    for (const round of [0, 1]) {
      const outcomes = await Promise.allSettled(
        runs.flatMap(({ run }) => [
          s.appendMetricPoints(
            orgId,
            run.id,
            run.id === bad && round === 1 ? broken : [series("loss", round * 100), series("acc", round * 100)],
            T0,
          ),
        ]),
      );
      outcomes.forEach((outcome, i) => {
        if (runs[i]!.run.id === bad && round === 1) assert.equal(outcome.status, "rejected");
        else assert.deepEqual(outcome, { status: "fulfilled", value: 200 });
      });
    }
    for (const { run } of runs) {
      const summaries = (await s.listMetricSummaries(orgId, run.id)).map((m) => [m.logName, m.count, m.lastStep, m.max]);
      const points = run.id === bad ? 100 : 200;
      assert.deepEqual(summaries, [
        ["acc", points, points - 1, points - 1],
        ["loss", points, points - 1, points - 1],
      ]);
      assert.equal((await s.readMetricPoints(orgId, run.id, "loss", 0, 1000, 1000)).length, points);
    }
  });
}
