import {
  type AuditAction,
  type AuditActor,
  type AuditEvent,
  type AuditTargetType,
  actionsMatching,
  actorLabel,
  auditEntry,
  CLI_ACTOR,
} from "../domain/audit.js";
import type { Json } from "../domain/merge.js";
import { encodePageToken, pageTokenCount } from "../domain/page-token.js";
import { toIso } from "../domain/time.js";
import type { Clock } from "../domain/time.js";
import type { AuditedMethod, AuditEntry } from "../store/store.js";
import type { Store } from "../store/store.js";

/**
 * Who acted and from where, as a request knows it (src/http/audit-context.ts `auditContext(request)`),
 * or the CLI and the server's jobs (CLI_ACTOR, SYSTEM_ACTOR of domain/audit.ts). An actor without a
 * label is a user of the organization: its label (email, or a service account's name) is looked up.
 */
export interface AuditContext {
  orgId: string;
  actor: ActorRef;
  /** The client's address (request.ip); null from the CLI and jobs. */
  sourceIp: string | null;
}

export type ActorRef = Omit<AuditActor, "label"> & { label?: string };

/** The context of a change the operator's command line makes in an organization. */
export const cliAuditContext = (orgId: string): AuditContext => ({ orgId, actor: CLI_ACTOR, sourceIp: null });

/** What one event says beyond its context. */
export interface AuditFact {
  action: AuditAction;
  target: { type: AuditTargetType; id: string } | null;
  details?: { [key: string]: Json };
}

export interface AuditListQuery {
  action?: string;
  actor?: string;
  targetType?: string;
  targetId?: string;
  since?: string;
  until?: string;
  limit: number;
  pageToken?: string;
}

/**
 * The organization's audit log (docs/semantics.md, "Audit log"; docs/architecture.md, "The audit log").
 *
 * - `record(context, fact)`: an event with no store write of its own (a sign-in, a failed sign-in),
 *   appended at once in its own transaction.
 * - `write(context, method, args, facts)`: a store write and the events its result makes, appended
 *   in the write's transaction: both commit or neither does, so a refused write (a 409) records
 *   nothing and a recorded event always happened.
 */
export class AuditLog {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async record(context: AuditContext, fact: AuditFact): Promise<void> {
    const actor = await this.resolve(context);
    await this.deps.store.appendAuditEntries([this.entry(context, actor, fact)]);
  }

  async write<K extends AuditedMethod>(
    context: AuditContext,
    method: K,
    args: Parameters<Store[K]>,
    facts: (result: Awaited<ReturnType<Store[K]>>) => AuditFact[],
  ): Promise<Awaited<ReturnType<Store[K]>>> {
    const actor = await this.resolve(context);
    const written = this.deps.store.audited(method, args, (result) => facts(result).map((fact) => this.entry(context, actor, fact)));
    return (await written) as Awaited<ReturnType<Store[K]>>;
  }

  /** A page of the organization's log, newest first, for GET /api/audit. */
  async list(orgId: string, query: AuditListQuery) {
    const entries = await this.deps.store.listAuditEntries(orgId, {
      actions: query.action === undefined ? null : actionsMatching(query.action),
      actor: query.actor ?? null,
      targetType: query.targetType ?? null,
      targetId: query.targetId ?? null,
      since: query.since === undefined ? null : Date.parse(query.since),
      until: query.until === undefined ? null : Date.parse(query.until),
      beforeId: query.pageToken === undefined ? null : pageTokenCount(query.pageToken, "beforeId"),
      // One more than the page: whether a next page exists, so the last page says it is the last.
      limit: query.limit + 1,
    });
    const page = entries.slice(0, query.limit);
    return {
      entries: page.map(present),
      nextPageToken: entries.length > query.limit ? encodePageToken({ beforeId: page.at(-1)!.id }) : null,
    };
  }

  private entry(context: AuditContext, actor: AuditActor, fact: AuditFact) {
    const event: AuditEvent = { orgId: context.orgId, actor, sourceIp: context.sourceIp, ...fact };
    return auditEntry(event, this.deps.clock.now());
  }

  private async resolve({ actor }: AuditContext): Promise<AuditActor> {
    if (actor.label !== undefined) return { userId: actor.userId, apiKeyId: actor.apiKeyId, label: actor.label };
    const user = actor.userId === null ? undefined : await this.deps.store.getUser(actor.userId);
    return { userId: actor.userId, apiKeyId: actor.apiKeyId, label: user ? actorLabel(user) : (actor.userId ?? "unknown") };
  }
}

function present(entry: AuditEntry) {
  return {
    id: entry.id,
    at: toIso(entry.at),
    action: entry.action,
    actor: { userId: entry.actorUserId, apiKeyId: entry.actorApiKeyId, label: entry.actorLabel },
    sourceIp: entry.sourceIp,
    target: entry.targetType === null ? null : { type: entry.targetType, id: entry.targetId ?? "" },
    details: entry.details === null ? null : (JSON.parse(entry.details) as { [key: string]: Json }),
  };
}
