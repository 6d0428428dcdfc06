/** What a delivery tells its receiver about an event and its run (docs/api.md, "Alerts": wire format). */

export interface DeliveredEvent {
  id: number;
  ruleId: number | null;
  ruleName: string | null;
  runId: number;
  runName: string;
  projectName: string;
  kind: string;
  title: string;
  body: string;
  level: string;
  createdAt: number;
}

export interface DeliveredRun {
  id: number;
  name: string;
  displayId: string;
  projectName: string;
  url: string;
}
