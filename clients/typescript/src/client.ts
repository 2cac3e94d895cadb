/**
 * The client of `vouch serve`'s HTTP API.
 *
 * ```ts
 * const client = new VouchClient(); // VOUCH_SERVER, VOUCH_API_KEY
 * const report = await client.verify(request);
 * if (report.verdict !== "pass") console.log(report.feedback);
 * ```
 *
 * Calls the server answers 429 (too many requests in flight) or 503 (the
 * store failed, nothing recorded) are retried after the server's
 * Retry-After, a few times; that is safe because verifications are
 * idempotent by key. Any other failure throws a {@link VouchError} with the
 * server's code and message.
 *
 * @module
 */

import {
  operations,
  type AlertReport,
  type BatchStatus,
  type Calibration,
  type GetCalibrationParams,
  type GetExamplesParams,
  type GetMetricsParams,
  type JudgeExamples,
  type ListVerificationsParams,
  type Metrics,
  type OperationId,
  type Outcome,
  type OutcomeInput,
  type Override,
  type OverrideInput,
  type Problem,
  type Report,
  type Request as VouchRequest,
  type StoredReport,
  type Summary,
  type TaskInput,
  type TaskResult,
  type VerificationList,
} from "./types.js";

/** The client's version, sent in its User-Agent. */
export const VERSION = "0.1.0";

/** The server a client talks to when neither its options nor VOUCH_SERVER name one. */
export const DEFAULT_SERVER = "http://127.0.0.1:8080";

/** How a {@link VouchClient} reaches its server. */
export interface ClientOptions {
  /** The server, http(s)://host:port; default VOUCH_SERVER, else http://127.0.0.1:8080. */
  baseUrl?: string;
  /**
   * The API key (vk_...), sent as `Authorization: Bearer`; default
   * VOUCH_API_KEY. Without one the server must be in open mode (no key in
   * its store, loopback only).
   */
  apiKey?: string;
  /** How many times a call answered 429 or 503 is retried (default 3; 0 never retries). */
  retries?: number;
  /** The longest wait before a retry, whatever the server's Retry-After says (default 10 s). */
  maxWaitMs?: number;
  /** How long a call may take, retries included (default 5 minutes); not the event stream. */
  timeoutMs?: number;
  /** The fetch to call (default the global one). */
  fetch?: typeof fetch;
}

/** What every call takes besides its arguments. */
export interface CallOptions {
  /** Aborts the call. */
  signal?: AbortSignal;
}

/** The options of the calls that verify. */
export interface VerifyOptions extends CallOptions {
  /** The key that makes the call idempotent; without one the request's id and attempt are the key. */
  idempotencyKey?: string;
}

/** An answer of the server other than success, or no answer at all. */
export class VouchError extends Error {
  /** The HTTP status; 0 when the server could not be reached or did not answer in time. */
  readonly status: number;
  /**
   * The error's code: the server's (syntax, unknown_field, wrong_type,
   * missing, unauthorized, forbidden, not_found, idempotency_conflict,
   * overloaded, ...) or, without an answer, unreachable, timeout or
   * bad_answer.
   */
  readonly code: string;
  /** Every problem of a bad input, each with its path; the error itself when the server listed no others. */
  readonly problems: Problem[];
  /** The server's Retry-After in milliseconds, when it gave one. */
  readonly retryAfterMs: number | undefined;
  /** What the error says, without the status and code that message adds. */
  readonly detail: string;

  constructor(status: number, code: string, detail: string, problems: Problem[] = [], retryAfterMs?: number, options?: { cause?: unknown }) {
    let message = status === 0 ? `vouch client: ${code}: ${detail}` : `vouch server: ${status} ${code}: ${detail}`;
    if (problems.length > 1) message += ` (and ${problems.length - 1} more problems)`;
    super(message, options);
    this.name = "VouchError";
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.problems = problems;
    this.retryAfterMs = retryAfterMs;
  }

  /** Whether the idempotency key (or the request's id and attempt) is stored for another body (409). */
  get isConflict(): boolean {
    return this.status === 409;
  }

  /** Whether the server answered 404. */
  get isNotFound(): boolean {
    return this.status === 404;
  }
}

/** One line of a batch's results, in input order. */
export interface BatchItem {
  /** The item's position in the results, from 0. */
  index: number;
  /** The item's report, once it is verified. */
  report?: Report;
  /** Why the item failed (it did not decode, or its verification failed). */
  error?: Problem;
  /** Whether the item is still waiting to be verified. */
  pending: boolean;
  /** The item's line in the batch, when the server gave it (items that failed or wait). */
  line?: number;
}

/** The event JSON: the same shape everywhere vouch emits events. */
export interface EventData {
  type: string;
  id: string;
  time: string;
  tenant: string;
  interactionId: string;
  taskId: string;
  attempt: number;
  /** The type's payload: for verification:complete, `{report, selfAssessment}`. */
  data: unknown;
}

/** One event of the stream. */
export class VouchEvent {
  /**
   * @param id The event's sequence number: give it as `lastEventId` to resume after it.
   * @param type The event's type (verification:complete, verification:retry, subtask:escalated, alert:firing, ...).
   * @param data The event JSON.
   */
  constructor(
    readonly id: string,
    readonly type: string,
    readonly data: EventData,
  ) {}

  /** The report of a verification:complete event; undefined for others. */
  get report(): Report | undefined {
    const p = this.data?.data as { report?: Report } | null | undefined;
    return this.type === "verification:complete" && p && typeof p.report === "object" ? p.report : undefined;
  }
}

/**
 * The event stream of the caller's tenant, as an async iterable of
 * {@link VouchEvent}. It ends when the server closes the stream; open
 * another from {@link EventStream.lastEventId} to resume with nothing lost.
 * Breaking out of a `for await` loop, or {@link EventStream.close}, hangs up.
 */
export class EventStream implements AsyncIterable<VouchEvent> {
  /** The id of the last event given, to resume after it. */
  lastEventId: string | undefined;
  readonly #body: ReadableStream<Uint8Array>;
  readonly #abort: AbortController;

  /** @internal */
  constructor(body: ReadableStream<Uint8Array>, abort: AbortController, lastEventId?: string) {
    this.#body = body;
    this.#abort = abort;
    this.lastEventId = lastEventId;
  }

  /** Hangs up. */
  close(): void {
    this.#abort.abort();
  }

  /** Reads the events as the server sends them; ends when it closes the stream or the stream is closed. */
  async *[Symbol.asyncIterator](): AsyncGenerator<VouchEvent, void, undefined> {
    let id = "";
    let type = "";
    let data: string[] = [];
    try {
      for await (const line of lines(this.#body)) {
        if (line === "") {
          if (data.length > 0) {
            let parsed: EventData;
            try {
              parsed = JSON.parse(data.join("\n")) as EventData;
            } catch (e) {
              throw new VouchError(0, "bad_answer", `event ${id}: ${String(e)}`);
            }
            if (id) this.lastEventId = id;
            yield new VouchEvent(id, type, parsed);
          }
          id = "";
          type = "";
          data = [];
        } else if (line.startsWith(":")) {
          continue;
        } else if (line.startsWith("id:")) {
          id = line.slice(3).trim();
        } else if (line.startsWith("event:")) {
          type = line.slice(6).trim();
        } else if (line.startsWith("data:")) {
          const d = line.slice(5);
          data.push(d.startsWith(" ") ? d.slice(1) : d);
        }
      }
    } catch (e) {
      if (this.#abort.signal.aborted) return;
      throw e instanceof VouchError ? e : new VouchError(0, "unreachable", `reading the event stream: ${String(e)}`, [], undefined, { cause: e });
    } finally {
      this.#abort.abort();
    }
  }
}

type Query = Record<string, string>;
type WindowParams<P> = Omit<P, "format">;

/** A client of one vouch server. */
export class VouchClient {
  /** The server's base URL. */
  readonly baseUrl: string;
  readonly #key: string;
  readonly #retries: number;
  readonly #maxWaitMs: number;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions = {}) {
    const base = (options.baseUrl ?? env("VOUCH_SERVER") ?? DEFAULT_SERVER).replace(/\/+$/, "");
    let u: URL;
    try {
      u = new URL(base);
    } catch {
      throw new TypeError(`${JSON.stringify(base)} is not an http(s) URL of a server`);
    }
    if ((u.protocol !== "http:" && u.protocol !== "https:") || !u.host) {
      throw new TypeError(`${JSON.stringify(base)} is not an http(s) URL of a server`);
    }
    this.baseUrl = base;
    this.#key = options.apiKey ?? env("VOUCH_API_KEY") ?? "";
    this.#retries = Math.max(0, options.retries ?? 3);
    this.#maxWaitMs = options.maxWaitMs ?? 10_000;
    this.#timeoutMs = options.timeoutMs ?? 300_000;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  // Verifying.

  /** Verifies one request and returns its report, stored in the log. */
  async verify(request: VouchRequest, options: VerifyOptions = {}): Promise<Report> {
    const { report } = await this.verifyRaw(JSON.stringify(request), options);
    return parse<Report>(report);
  }

  /**
   * Sends a request as it is (JSON, or YAML with `contentType`
   * application/yaml) and returns the report's JSON, and whether the server
   * replayed a stored report (Idempotent-Replayed).
   */
  async verifyRaw(
    body: string | Uint8Array,
    options: VerifyOptions & { contentType?: string } = {},
  ): Promise<{ report: string; replayed: boolean }> {
    const headers: Record<string, string> = { "Content-Type": options.contentType ?? "application/json" };
    if (options.idempotencyKey) headers["Idempotency-Key"] = options.idempotencyKey;
    const res = await this.#call(op("verify"), { headers, body, signal: options.signal });
    return { report: res.text, replayed: res.headers.get("Idempotent-Replayed") === "true" };
  }

  /** Verifies the plain task shape: a description, criteria as sentences and an output. */
  async verifyTask(input: TaskInput, options: VerifyOptions = {}): Promise<TaskResult> {
    const headers: Record<string, string> = {};
    if (options.idempotencyKey) headers["Idempotency-Key"] = options.idempotencyKey;
    return this.#json<TaskResult>(op("verifyTask"), { body: input, headers, signal: options.signal });
  }

  // Batches.

  /**
   * Sends requests as a batch and returns its status; the server verifies
   * them in the background. A request given as a string is sent as it is
   * when it is on one line.
   */
  async createBatch(requests: Iterable<VouchRequest | string>, options: CallOptions = {}): Promise<BatchStatus> {
    let body = "";
    for (const r of requests) {
      let line = typeof r === "string" ? r.trim() : JSON.stringify(r);
      if (line.includes("\n")) line = JSON.stringify(JSON.parse(line));
      body += line + "\n";
    }
    const res = await this.#call(op("createBatch"), {
      headers: { "Content-Type": "application/jsonl" },
      body,
      signal: options.signal,
    });
    return parse<BatchStatus>(res.text);
  }

  /** Returns a batch's status. */
  batch(id: string, options: CallOptions = {}): Promise<BatchStatus> {
    return this.#json<BatchStatus>(op("getBatch", { id }), options);
  }

  /**
   * Polls a batch until it is done and returns its status; past `timeoutMs`
   * (default 10 minutes) it throws a {@link VouchError} (code timeout).
   * `intervalMs` is the longest pause between polls (default 500; the first
   * ones are shorter).
   */
  async waitBatch(
    id: string,
    options: CallOptions & { timeoutMs?: number; intervalMs?: number } = {},
  ): Promise<BatchStatus> {
    const timeoutMs = options.timeoutMs ?? 600_000;
    const intervalMs = options.intervalMs ?? 500;
    const deadline = Date.now() + timeoutMs;
    let pause = Math.min(50, intervalMs);
    for (;;) {
      const status = await this.batch(id, options);
      if (status.state === "done") return status;
      const left = deadline - Date.now();
      if (left <= 0) throw new VouchError(0, "timeout", `batch ${id} is not done after ${timeoutMs} ms`);
      await sleep(Math.min(pause, left), options.signal);
      pause = Math.min(pause * 2, intervalMs);
    }
  }

  /** Iterates over a batch's results, in input order: each item's report, its error, or that it is pending. */
  async *batchResults(id: string, options: CallOptions = {}): AsyncGenerator<BatchItem, void, undefined> {
    const abort = new AbortController();
    const res = await this.#stream(op("getBatchResults", { id }), {}, link(abort, options.signal));
    let index = 0;
    try {
      for await (const raw of lines(res.body!)) {
        const line = raw.trim();
        if (!line) continue;
        const item = parse<Record<string, unknown>>(line);
        if ("line" in item && !("apiVersion" in item)) {
          yield {
            index,
            pending: item.pending === true,
            line: item.line as number,
            ...(item.error ? { error: item.error as Problem } : {}),
          };
        } else {
          yield { index, report: item as unknown as Report, pending: false };
        }
        index++;
      }
    } finally {
      abort.abort();
    }
  }

  // The log.

  /** Returns a stored report, with the overrides people added; attempt 0 means the latest. */
  verification(id: string, attempt = 0, options: CallOptions = {}): Promise<StoredReport> {
    const query: Query = attempt > 0 ? { attempt: String(attempt) } : {};
    return this.#json<StoredReport>(op("getVerification", { id }), { ...options, query });
  }

  /** Returns a page of the log, newest first; pass the page's `next` as `cursor` for the next. */
  listVerifications(params: ListVerificationsParams = {}, options: CallOptions = {}): Promise<VerificationList> {
    return this.#json<VerificationList>(op("listVerifications"), { ...options, query: toQuery(params) });
  }

  /** Iterates over the whole log (filtered as {@link VouchClient.listVerifications}), newest first, page after page. */
  async *iterVerifications(params: ListVerificationsParams = {}, options: CallOptions = {}): AsyncGenerator<Summary, void, undefined> {
    let p = { ...params };
    for (;;) {
      const page = await this.listVerifications(p, options);
      yield* page.items;
      if (!page.next) return;
      p = { ...p, cursor: page.next };
    }
  }

  // Labels.

  /**
   * Records a person's verdict (pass, retry or fail) beside a stored
   * verification (`attempt` 0: its latest) and returns it as recorded; the
   * report never changes. It needs a key with the review scope.
   */
  override(id: string, input: OverrideInput, options: CallOptions = {}): Promise<Override> {
    return this.#json<Override>(op("overrideVerification", { id }), { ...options, body: input });
  }

  /**
   * Records what happened downstream of a verification: one named by
   * `verificationId` (and `attempt`), or the latest of a task named by
   * `taskId` (and `interactionId`); `good` is required. It needs a key with
   * the review scope.
   */
  outcome(input: OutcomeInput, options: CallOptions = {}): Promise<Outcome> {
    return this.#json<Outcome>(op("recordOutcome"), { ...options, body: input });
  }

  // Quality.

  /**
   * Returns the quality metrics of the caller's tenant over a window:
   * `since` and `until`, or `window` (a Go duration, "168h"); `kind`,
   * `executorModel` and `criticality` filter. It needs the read scope.
   */
  metrics(params: GetMetricsParams = {}, options: CallOptions = {}): Promise<Metrics> {
    return this.#json<Metrics>(op("getMetrics"), { ...options, query: toQuery(params) });
  }

  /** Evaluates the tenant's alerts now and returns every configured one, firing or not. It needs the read scope. */
  alerts(options: CallOptions = {}): Promise<AlertReport> {
    return this.#json<AlertReport>(op("getAlerts"), options);
  }

  /** Fits the server's policy to the labels of a window and returns the calibration (nothing is applied). */
  calibration(params: WindowParams<GetCalibrationParams> = {}, options: CallOptions = {}): Promise<Calibration> {
    return this.#json<Calibration>(op("getCalibration"), { ...options, query: toQuery(params) });
  }

  /** Returns the calibration's suggestion as a policy file (YAML); a {@link VouchError} 409 when nothing is suggested. */
  async calibrationPatch(params: WindowParams<GetCalibrationParams> = {}, options: CallOptions = {}): Promise<string> {
    const query = toQuery({ ...params, format: "patch" });
    return (await this.#call(op("getCalibration"), { ...options, query })).text;
  }

  /** Returns few-shot judge examples made from the window's overrides that give a reason. */
  examples(params: WindowParams<GetExamplesParams> = {}, options: CallOptions = {}): Promise<JudgeExamples> {
    return this.#json<JudgeExamples>(op("getExamples"), { ...options, query: toQuery(params) });
  }

  /** Returns the examples as a policy file setting judge.examples; a {@link VouchError} 409 when no override gives a reason. */
  async examplesPatch(params: WindowParams<GetExamplesParams> = {}, options: CallOptions = {}): Promise<string> {
    const query = toQuery({ ...params, format: "patch" });
    return (await this.#call(op("getExamples"), { ...options, query })).text;
  }

  // Events.

  /**
   * Follows the event stream of the caller's tenant. With `lastEventId` it
   * resumes after that event; without, it starts with the events stored
   * from now on (which is fixed once this resolves).
   */
  async events(options: CallOptions & { lastEventId?: string } = {}): Promise<EventStream> {
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (options.lastEventId) headers["Last-Event-ID"] = options.lastEventId;
    const abort = new AbortController();
    const res = await this.#stream(op("events"), headers, link(abort, options.signal));
    return new EventStream(res.body!, abort, options.lastEventId);
  }

  // Transport.

  async #json<T>(
    o: Op,
    options: CallOptions & { query?: Query; body?: unknown; headers?: Record<string, string> },
  ): Promise<T> {
    const headers = { ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["Content-Type"] = "application/json";
    }
    const res = await this.#call(o, { ...options, headers, body });
    return parse<T>(res.text);
  }

  /** Makes a call, retrying 429 and 503 after Retry-After; any answer other than 2xx throws. */
  async #call(
    o: Op,
    options: CallOptions & { query?: Query; headers?: Record<string, string>; body?: string | Uint8Array },
  ): Promise<{ status: number; headers: Headers; text: string }> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = options.signal ? anySignal([options.signal, timeout]) : timeout;
    for (let attempt = 0; ; attempt++) {
      const res = await this.#send(o, options.query, options.headers, options.body, signal, timeout);
      let text: string;
      try {
        text = await res.text();
      } catch (e) {
        throw transportError(o, e, signal, timeout);
      }
      if (res.ok) return { status: res.status, headers: res.headers, text };
      const err = answerError(res, text);
      if ((res.status !== 429 && res.status !== 503) || attempt >= this.#retries) throw err;
      try {
        await sleep(Math.min(Math.max(err.retryAfterMs ?? 0, 100), this.#maxWaitMs), signal);
      } catch (e) {
        throw transportError(o, e, signal, timeout);
      }
    }
  }

  /** Makes a GET whose body the caller reads. */
  async #stream(o: Op, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
    const res = await this.#send(o, undefined, headers, undefined, signal);
    if (!res.ok) throw answerError(res, await res.text().catch(() => ""));
    if (!res.body) throw new VouchError(0, "bad_answer", `${o.method} ${o.path}: no body`);
    return res;
  }

  async #send(
    o: Op,
    query: Query | undefined,
    headers: Record<string, string> | undefined,
    body: string | Uint8Array | undefined,
    signal: AbortSignal,
    timeout?: AbortSignal,
  ): Promise<Response> {
    let url = this.baseUrl + o.path;
    const q = new URLSearchParams(query ?? {}).toString();
    if (q) url += "?" + q;
    const h: Record<string, string> = {
      "User-Agent": `vouch-typescript/${VERSION}`,
      Accept: "application/json",
      ...headers,
    };
    if (this.#key) h.Authorization = `Bearer ${this.#key}`;
    try {
      return await this.#fetch(url, { method: o.method, headers: h, body, signal });
    } catch (e) {
      throw transportError(o, e, signal, timeout);
    }
  }
}

interface Op {
  method: string;
  path: string;
}

/** Returns the method and path of an operation, its path parameters filled in. */
function op(id: OperationId, params: Record<string, string> = {}): Op {
  const { method, path } = operations[id];
  return { method, path: path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(params[k] ?? "")) };
}

/** Encodes query parameters: Dates as RFC 3339, booleans and numbers as text; absent ones left out. */
function toQuery(params: object): Query {
  const q: Query = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    q[k] = v instanceof Date ? v.toISOString() : String(v);
  }
  return q;
}

function parse<T>(text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new VouchError(0, "bad_answer", `the answer is not JSON: ${String(e)}`);
  }
}

/** Reads the server's error body. */
function answerError(res: Response, text: string): VouchError {
  let code = res.statusText || String(res.status);
  let detail = text.trim();
  let problems: Problem[] = [];
  try {
    const body = JSON.parse(text) as { error?: Problem; errors?: Problem[] };
    if (body && typeof body.error === "object" && body.error) {
      code = body.error.code;
      detail = body.error.message;
      problems = Array.isArray(body.errors) && body.errors.length > 0 ? body.errors : [body.error];
    }
  } catch {
    // Not JSON: the status and the text.
  }
  const ra = res.headers.get("Retry-After");
  const seconds = ra !== null && /^\d+$/.test(ra.trim()) ? Number(ra.trim()) : undefined;
  return new VouchError(res.status, code, detail, problems, seconds === undefined ? undefined : seconds * 1000);
}

/**
 * Turns a failed fetch into a VouchError: timeout when the call's own time
 * ran out, unreachable for any other failure; an abort of the caller's
 * signal is returned as it is.
 */
function transportError(o: Op, e: unknown, signal: AbortSignal, timeout?: AbortSignal): unknown {
  if (timeout?.aborted) return new VouchError(0, "timeout", `${o.method} ${o.path}: no answer in time`, [], undefined, { cause: e });
  if (signal.aborted) return e;
  const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : "";
  return new VouchError(0, "unreachable", `${o.method} ${o.path}: ${String(e)}${cause}`, [], undefined, { cause: e });
}

/** Splits a byte stream into lines (without their \n or \r\n). */
async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string, void, undefined> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buf = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        yield buf.slice(0, nl).replace(/\r$/, "");
        buf = buf.slice(nl + 1);
      }
    }
    buf += decoder.decode();
    if (buf) yield buf.replace(/\r$/, "");
  } finally {
    reader.releaseLock();
  }
}

/** Resolves after ms, or rejects when signal aborts first. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A signal that aborts when any of signals does. */
function anySignal(signals: AbortSignal[]): AbortSignal {
  const native = (AbortSignal as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (native) return native.call(AbortSignal, signals);
  const c = new AbortController();
  for (const s of signals) {
    if (s.aborted) {
      c.abort(s.reason);
      break;
    }
    s.addEventListener("abort", () => c.abort(s.reason), { once: true });
  }
  return c.signal;
}

/** Aborts controller when signal does, and returns the controller's signal. */
function link(controller: AbortController, signal?: AbortSignal): AbortSignal {
  if (signal) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

/** Reads an environment variable where there is an environment (Node, Deno, Bun). */
function env(name: string): string | undefined {
  const p = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const v = p?.env?.[name];
  return v === "" ? undefined : v;
}
