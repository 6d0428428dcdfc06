/** 1 MiB outside the ingest routes (docs/semantics.md, Ingest wire format: sizes): run writes are small; a larger body is a mistake. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** 64 MiB per ingest request (docs/semantics.md, Ingest wire format: sizes): ~2M points in one body, far above what any client batches. */
export const INGEST_BODY_LIMIT = 64 * 1024 * 1024;
/** Bytes of large ingest bodies a process takes at once (http/large-bodies.ts): two at the limit. */
export const LARGE_BODIES_BUDGET = 2 * INGEST_BODY_LIMIT;
