import assert from "node:assert/strict";
import { it } from "node:test";
import type { RunStatus } from "../../../src/domain/status.js";
import type { Store } from "../../../src/store/store.js";
import { ACTOR, newOrg, runInput, T0 } from "./backends.js";

const WRITERS = 32;

/**
 * Many writers at once (docs/architecture.md, "PostgreSQL: many writers"). On SQLite the calls
 * run one after the other; on PostgreSQL each runs on its own pooled connection, at the same time,
 * so every read-then-write must be guarded by the database.
 */
export function concurrencyContract(store: () => Store): void {
  it("gives concurrent creates in one project distinct run numbers", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const created = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => s.createRun(orgId, runInput({ projectName: "busy", name: `r${i}` }), ACTOR)),
    );
    const numbers = created.map(({ run }) => run.number);
    assert.equal(new Set(numbers).size, WRITERS, `numbers ${numbers.join(",")}`);
    assert.equal(new Set(created.map(({ run }) => run.displayId)).size, WRITERS);
    assert.equal((await s.getProjectByName(orgId, "busy"))!.runCount, WRITERS);
  });

  it("turns 32 concurrent creates with one externalId into one run with one RUNNING event", async () => {
    const s = store();
    const orgId = await newOrg(s);
    // The project exists already: creating it would queue the creates behind its first INSERT.
    await s.createRun(orgId, runInput({ projectName: "ext" }), ACTOR);
    // A race is a matter of timing: several rounds make a missing guard fail reliably.
    for (const externalId of ["job-1", "job-2", "job-3", "job-4"]) {
      const created = await Promise.all(
        Array.from({ length: WRITERS }, () => s.createRun(orgId, runInput({ projectName: "ext", externalId }), ACTOR)),
      );
      const ids = new Set(created.map(({ run }) => run.id));
      assert.equal(ids.size, 1);
      assert.equal(created.filter(({ resumed }) => !resumed).length, 1);
      const [runId] = ids;
      assert.deepEqual(
        (await s.listStatusEvents(orgId, runId!))!.map((e) => [e.fromStatus, e.toStatus]),
        [[null, "RUNNING"]],
      );
    }
    assert.equal((await s.getProjectByName(orgId, "ext"))!.runCount, 5);
  });

  it("decides concurrent terminal writes by precedence, each against the status the previous one left", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    const statuses: RunStatus[] = ["COMPLETED", "TERMINATED", "CANCELLED", "FAILED"];
    await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        s.updateRunStatus(orgId, run.id, { status: statuses[i % statuses.length]!, source: "api", now: T0 + i }, ACTOR),
      ),
    );
    assert.equal((await s.getRun(orgId, run.id))!.status, "FAILED");
    const events = (await s.listStatusEvents(orgId, run.id))!;
    const rank = (status: RunStatus | null) => (status === null || status === "RUNNING" ? 0 : statuses.indexOf(status) + 1);
    events.slice(1).forEach((event, i) => {
      assert.equal(event.fromStatus, events[i]!.toStatus, "each event starts where the previous ended");
      assert.ok(rank(event.toStatus) > rank(event.fromStatus), `${event.fromStatus} → ${event.toStatus} breaks precedence`);
    });
  });

  it("keeps every key of concurrent config merges", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput({ config: { base: true } }), ACTOR);
    await Promise.all(Array.from({ length: WRITERS }, (_, i) => s.mergeRunConfig(orgId, run.id, { nested: { [`k${i}`]: i } }, T0 + i)));
    const config = (await s.getRun(orgId, run.id))!.config as { base: boolean; nested: Record<string, number> };
    assert.equal(config.base, true);
    assert.equal(Object.keys(config.nested).length, WRITERS);
  });

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

  it("gives concurrent registrations of one file name one ID", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    const file = (i: number) => ({ logName: "images/a", fileName: "x.png", fileType: "png", fileSize: i + 1, time: T0, step: i });
    const registered = await Promise.all(Array.from({ length: WRITERS }, (_, i) => s.registerFiles(orgId, run.id, [file(i)], T0)));
    assert.equal(new Set(registered.map((files) => files![0]!.id)).size, 1);
  });

  it("counts console lines exactly when writers send and re-send batches at once", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    const line = (n: number) => ({ time: T0 + n, message: `line ${n}`, lineNumber: n, logType: "INFO" as const, step: null });
    // Every batch is sent twice by different writers: 8 distinct batches of 25 lines.
    await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        s.appendConsoleLines(
          orgId,
          run.id,
          Array.from({ length: 25 }, (_, k) => line((i % 8) * 25 + k)),
          T0,
        ),
      ),
    );
    const page = await s.listConsoleLines(orgId, run.id, { offset: 0, limit: 1000, maxBytes: 1 << 20 });
    assert.equal(page.total, 200);
    assert.equal(page.items.length, 200);
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
