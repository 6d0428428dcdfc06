/**
 * Write turns: one writer at a time on a database that has two (SQLite's main connection and its
 * metric writer thread, src/store/sqlite/metric-writer-thread.ts). SQLite lets one connection write
 * at a time and makes the other wait synchronously for its lock, which on the main thread would
 * stop the event loop and, past the busy timeout, fail the request. Here every write asks for a
 * turn instead and waits for it without blocking: turns are given in the order asked for, so a
 * stream of metric groups never starves a sign-in or a run's creation, each waiting at most for the
 * group ahead of it.
 */
export class WriteTurns {
  private last: Promise<void> = Promise.resolve();

  /** Runs `work` once every turn asked for before has ended; its turn ends when `work` settles. */
  async take<T>(work: () => T | Promise<T>): Promise<T> {
    const before = this.last;
    let end!: () => void;
    this.last = new Promise<void>((resolve) => (end = resolve));
    await before;
    try {
      return await work();
    } finally {
      end();
    }
  }
}
