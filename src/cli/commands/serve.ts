import { ConfigError, loadConfig, maskPassword, OPTIONS } from "../../config.js";
import { startServer } from "../../server.js";
import { configFlags, UsageError, type Command } from "../command.js";

const LISTEN_ERRORS = new Map([
  ["EADDRINUSE", "the address is already in use"],
  ["EACCES", "permission denied (ports below 1024 need privileges)"],
  ["EADDRNOTAVAIL", "the host is not an address of this machine"],
]);

export const serveCommand: Command = {
  summary: "start the server (API, ingest and web UI) on the embedded store or PostgreSQL",
  usage: `Usage: stepwise serve [options]

Starts the server. On first start of an empty data directory it creates organization 'default'
and prints its API key once.

Options:
${OPTIONS.map((o) => `  ${(`${o.flag} VALUE`).padEnd(28)} ${o.doc} (default ${o.default || "empty"}, env ${o.env})`).join("\n")}`,
  valueOptions: OPTIONS.map((option) => option.flag.slice(2)),
  async run({ positionals, values }) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const config = loadConfig(configFlags(values));
    const server = await startServer(config).catch((error: NodeJS.ErrnoException) => {
      const reason = LISTEN_ERRORS.get(error.code ?? "");
      if (reason)
        throw new ConfigError(
          `cannot listen on ${config.host}:${config.port}: ${reason} (set --port or STEPWISE_PORT, --host or STEPWISE_HOST)`,
        );
      throw error;
    });
    // Signal handlers go in before anything is printed: a supervisor (or test) may send SIGTERM as soon
    // as it reads the URL, and a signal without a handler would kill the process mid-request.
    const stopped = new Promise<void>((resolve) => {
      const shutdown = (signal: string) => {
        server.app.log.info({ signal }, "shutting down: finishing in-flight requests");
        server.close().then(resolve, (error: unknown) => {
          console.error(error);
          resolve();
        });
      };
      process.once("SIGTERM", () => shutdown("SIGTERM"));
      process.once("SIGINT", () => shutdown("SIGINT"));
    });
    if (server.bootstrapKey) {
      console.log(
        `\nFirst start: created organization 'default'. Its API key (shown only this once):\n\n  ${server.bootstrapKey}\n\n` +
          `Make more keys with: ./bin/stepwise keys create --org default --data-dir ${config.dataDir}\n`,
      );
    }
    // Printed last, so a supervisor (or test) that waits for this line has seen the key already.
    const storage = config.databaseUrl === "" ? `data directory ${config.dataDir}` : `database ${maskPassword(config.databaseUrl)}`;
    console.log(`Stepwise is listening on ${server.url} (${storage})`);
    await stopped;
  },
};
