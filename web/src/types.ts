// Shapes of the API responses the UI reads (docs/api.md; the OpenAPI document has them all).

export type RunStatus = "RUNNING" | "COMPLETED" | "FAILED" | "TERMINATED" | "CANCELLED";

export interface Validation {
  valid: boolean;
  organization: { id: number; slug: string };
}

export interface Project {
  id: number;
  name: string;
  createdAt: string;
  updatedAt: string;
  runCount: number;
}

export interface RunListItem {
  id: number;
  name: string;
  number: number | null;
  displayId: string | null;
  projectName: string;
  status: RunStatus;
  tags: string[];
  createdAt: string;
  updatedAt: string;
  statusUpdated: string | null;
  _flatConfig?: Record<string, unknown>;
  _flatSystemMetadata?: Record<string, unknown>;
}

export interface RunList {
  runs: RunListItem[];
  total: number;
}

export interface RunListQuery {
  projectName: string;
  search?: string;
  tags?: string;
  status?: string;
  sort?: string;
  filter?: string;
  limit: number;
  offset: number;
  includeFieldValues?: boolean;
  visibleColumns?: string;
}

export interface LogNameEntry {
  logName: string;
  logType: string;
  logGroup: string | null;
}

export interface ForkChild {
  id: number;
  name: string;
  displayId: string | null;
  status: RunStatus;
  forkStep: number | null;
}

export interface RunDetails {
  id: number;
  name: string;
  number: number | null;
  displayId: string | null;
  status: RunStatus;
  tags: string[];
  notes: string | null;
  config: unknown;
  systemMetadata: unknown;
  loggerSettings: unknown;
  statusMetadata: unknown;
  createdAt: string;
  updatedAt: string;
  statusUpdated: string | null;
  projectName: string;
  externalId: string | null;
  forkedFromRunId: number | null;
  forkStep: number | null;
  forkChildren: ForkChild[];
  logNames: LogNameEntry[];
}

export interface MetricStatistics {
  logName: string;
  logGroup: string;
  count: number;
  min: number;
  max: number;
  mean: number;
  stddev: number;
  last: { step: number; value: number };
}

export interface Statistics {
  runId: number;
  runName: string;
  projectName: string;
  url: string;
  metrics: MetricStatistics[];
}

export interface MetricPoint {
  logName: string;
  logGroup: string;
  time: string;
  step: number;
  value: number;
  /** bit0 NaN, bit1 +Infinity, bit2 -Infinity; when non-zero, value is meaningless. */
  nonFiniteFlags: number;
}

export interface LogLine {
  time: string;
  logType: string;
  lineNumber: number;
  message: string;
  step: number | null;
}

export interface FileRecord {
  fileName: string;
  fileType: string;
  fileSize: number;
  logName: string;
  logGroup: string;
  time: string;
  step: number;
  url: string;
}

export interface StatusEvent {
  id: string;
  fromStatus: string | null;
  toStatus: string;
  source: string;
  metadata?: unknown;
  createdAt: string;
}

export interface ModelNode {
  type: string;
  depth: number;
  order?: number;
  label?: string;
  node_type?: string;
  params?: Record<string, number[]>;
  edges?: string[][];
}

export interface ModelGraph {
  format: string;
  nodes: Record<string, ModelNode>;
}

export interface CompareStats {
  count: number;
  min: number;
  max: number;
  mean: number;
  final: number;
}

export interface Comparison {
  projectName: string;
  logName: string;
  comparisonUrl: string;
  runs: { runId: number; runName: string; url: string; status: RunStatus; config: unknown; stats: CompareStats | null }[];
}

export interface LeaderboardEntry {
  rank: number;
  runId: number;
  runName: string;
  status: RunStatus;
  url: string;
  value: number;
  tags: string[];
  createdAt: string;
  config: unknown;
}

export interface Leaderboard {
  projectName: string;
  logName: string;
  aggregation: string;
  direction: string;
  runs: LeaderboardEntry[];
  total: number;
}
