/**
 * The load process of bench/ingest.ts: N concurrent clients, each streaming NDJSON metric batches
 * to its own run over keep-alive HTTP for a fixed time. Prints one JSON line of results.
 * Usage: ingest-load.ts <urls comma list> <key> <project> <runIds comma list> <seconds> <metrics> <steps per batch>
 * With several server URLs (processes on one database), client c sends to server c mod their number.
 */
import http from "node:http";

const [urlList, key, project, runList, seconds, metricCount, stepsPerBatch] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
const runIds = runList.split(",").map(Number);
const METRICS = Number(metricCount);
const STEPS = Number(stepsPerBatch);
const targets = urlList.split(",").map((url) => new URL(url));
const agent = new http.Agent({ keepAlive: true, maxSockets: runIds.length });

// The data part of a line is serialized once per client; each batch only changes step and time.
function dataTemplate(seed: number): string[] {
  return Array.from({ length: 16 }, (_, variant) => {
    const data: Record<string, number> = {};
    for (let m = 0; m < METRICS; m++) data[`group${m % 10}/metric_${m}`] = Math.sin(seed + variant * 0.37 + m) * 10;
    return JSON.stringify(data);
  });
}

function post(target: URL, runId: number, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: "/ingest/metrics",
        method: "POST",
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/x-ndjson",
          "content-length": Buffer.byteLength(body),
          "x-run-id": runId,
          "x-project-name": project,
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () =>
          response.statusCode === 200 ? resolve(JSON.parse(text).accepted) : reject(new Error(`${response.statusCode} ${text}`)),
        );
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

const deadline = Date.now() + Number(seconds) * 1000;
const latencies: number[] = [];
let points = 0;
const started = Date.now();
await Promise.all(
  runIds.map(async (runId, client) => {
    const templates = dataTemplate(client);
    for (let batch = 0; Date.now() < deadline; batch++) {
      const lines = [];
      for (let k = 0; k < STEPS; k++) {
        const step = batch * STEPS + k;
        lines.push(`{"time":${started + step},"step":${step},"data":${templates[step % templates.length]}}`);
      }
      const t0 = performance.now();
      const accepted = await post(targets[client % targets.length]!, runId, lines.join("\n"));
      latencies.push(performance.now() - t0);
      points += accepted;
    }
  }),
);
const elapsed = (Date.now() - started) / 1000;
agent.destroy();
console.log(JSON.stringify({ points, elapsed, latencies }));
