import { setImmediate as nextTurn } from "node:timers/promises";

/** What one item of a group came to: its result, or the error that rolled back its own writes only. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Writes all items of a group in ONE transaction, each item inside its own savepoint: an item that
 * throws is rolled back to its savepoint and reported as failed, the others go on. Returns one
 * outcome per item, in order, once the transaction has committed (durably). Throws when the
 * transaction as a whole could not commit: then nothing of the group is stored.
 */
export type CommitGroup<Item, Result> = (items: Item[]) => Outcome<Result>[] | Promise<Outcome<Result>[]>;

interface Waiting<Item, Result> {
  item: Item;
  resolve: (value: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit (docs/decisions.md, "Group commit of metric writes"). A store whose commit blocks the
 * event loop (better-sqlite3 with synchronous=FULL: the fsync of every commit) pays that commit per
 * request, however small the request. Here the items submitted within one turn of the event loop
 * (the requests whose bodies were read together) wait for the end of the turn and are written in
 * one transaction with one commit. The rule, for every store that uses it:
 * - a submitter's promise settles only after the commit that holds its item returned, so whatever
 *   is acknowledged is durable;
 * - an item that fails rolls back its own writes only (its savepoint), the others are stored;
 * - a commit that fails rejects every item of the group, none of which is stored;
 * - groups run one after another, at most `maxItems` items each, in the order submitted.
 * Items are validated by their callers before they are submitted: an invalid request never joins a group.
 */
export class GroupCommit<Item, Result> {
  private waiting: Waiting<Item, Result>[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly commit: CommitGroup<Item, Result>,
    private readonly maxItems = 64,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.running ??= this.drain();
    });
  }

  /** Settles once every item submitted so far is committed or has failed (closing a store waits for it). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    try {
      // The rest of this turn: the other requests read in it submit their items meanwhile.
      await nextTurn();
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0, this.maxItems);
        let outcomes: Outcome<Result>[];
        try {
          outcomes = await this.commit(group.map((one) => one.item));
        } catch (error) {
          for (const one of group) one.reject(error);
          continue;
        }
        group.forEach((one, i) => {
          const outcome = outcomes[i]!;
          if (outcome.ok) one.resolve(outcome.value);
          else one.reject(outcome.error);
        });
      }
    } finally {
      this.running = undefined;
    }
  }
}
