/**
 * The null sink of bench/ingest.ts: an HTTP server that takes the load process's ingest requests and
 * does only what any server must, read each body and JSON.parse its lines, then answers {accepted}
 * with the points counted. What Stepwise does beyond this is its own cost; the ratio of the two
 * says how close ingest comes to the limit of HTTP and JSON on the machine it runs on.
 * Plain JavaScript, run without tsx: nothing here to load but node:http.
 */
import http from "node:http";

const server = http.createServer((request, response) => {
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (chunk) => (body += chunk));
  request.on("end", () => {
    let points = 0;
    for (const line of body.split("\n")) {
      if (line.length === 0) continue;
      const data = JSON.parse(line).data;
      for (const _ in data) points++;
    }
    const text = JSON.stringify({ accepted: points });
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    response.end(text);
  });
});
server.keepAliveTimeout = 72_000;
server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
process.on("SIGTERM", () => setTimeout(() => process.exit(0), 1000).unref());
