/**
 * Loaded with `NODE_OPTIONS=--import <this file>` (which refuses --cpu-prof): records a V8 CPU
 * profile of the whole process and writes it to $BENCH_PROFILE_DIR/<pid>.cpuprofile when the
 * process exits (open it in Chrome DevTools, or summarize it with bench/lib/profile-top.ts).
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 1000 });
  session.post("Profiler.start");
  // A same-thread session answers synchronously, so this works inside an exit handler.
  process.once("exit", () => {
    session.post("Profiler.stop", (error, result) => {
      if (!error) writeFileSync(`${dir}/${process.pid}.cpuprofile`, JSON.stringify(result.profile));
    });
  });
}
