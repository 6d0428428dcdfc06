/** Any JSON value: for a body whose shape a test states in full. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * The body type when a call names none: a parsed JSON object or array whose fields the test's
 * assertions check rather than the compiler. Name the type to have it checked
 * (`client.get<RunDetails>(...)`), or `string` for a body that is not JSON (it is then the text).
 */
export type LooseJson = { readonly [field: string]: any };

export interface ApiResponse<T = LooseJson> {
  status: number;
  headers: Headers;
  body: T;
}

/** What `POST /api/runs/create` answers (a type, not an interface, so it can be passed as a query). */
export type CreatedRun = {
  runId: number;
  displayId: string;
  number: number;
  url: string;
  resumed: boolean;
  projectName: string;
};

type Query = Record<string, string | number | boolean | undefined>;

/** A small typed client over fetch: every call is real HTTP against a real server. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly key: string | undefined,
  ) {}

  withKey(key: string | undefined): ApiClient {
    return new ApiClient(this.baseUrl, key);
  }

  url(path: string, query: Query = {}): string {
    const url = new URL(path, this.baseUrl);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  async get<T = LooseJson>(path: string, query?: Query, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    return this.request<T>("GET", path, undefined, query, headers);
  }

  async post<T = LooseJson>(path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    return this.request<T>("POST", path, body === undefined ? undefined : JSON.stringify(body), undefined, {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    });
  }

  /** Sends a raw body with the given headers (content types, malformed JSON, NDJSON). */
  async raw<T = LooseJson>(
    method: string,
    path: string,
    body: string | Buffer | undefined,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    return this.request<T>(method, path, body, undefined, headers);
  }

  private async request<T>(
    method: string,
    path: string,
    body: string | Buffer | undefined,
    query: Query | undefined,
    headers: Record<string, string>,
  ): Promise<ApiResponse<T>> {
    const response = await fetch(this.url(path, query), {
      method,
      body: typeof body === "string" || body === undefined ? body : new Uint8Array(body),
      headers: { ...(this.key === undefined ? {} : { authorization: `Bearer ${this.key}` }), ...headers },
    });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get("content-type") ?? "").includes("application/json") && text !== "") parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  /** Creates a run and returns the create response (asserting success). */
  async createRun(body: Record<string, unknown> = {}): Promise<CreatedRun> {
    const response = await this.post<CreatedRun>("/api/runs/create", { runName: "run", projectName: "project", ...body });
    if (response.status !== 200) throw new Error(`create run failed: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  }
}
