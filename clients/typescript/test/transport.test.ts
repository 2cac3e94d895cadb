/**
 * The client's retries, errors and stream reading, against stub servers
 * that answer what a test scripts (429, 503, an event stream).
 */

import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";

import { VouchClient, VouchError } from "../src/index.js";

const REPORT = {
  apiVersion: "vouch/v1",
  id: "r-1",
  kind: "subtask",
  attempt: 1,
  verdict: "unverified",
  action: "accept",
  score: null,
  confidence: 0,
  needsReview: true,
  claims: [],
  coverage: null,
  dimensions: {},
  criteria: [],
  checks: [],
  mentions: { verified: [], unverified: [], refuted: [] },
  gaps: [],
  issues: [],
  suggestions: [],
  warnings: [],
  feedback: "",
  cost: { judgeCalls: 0, cacheHits: 0, cacheMisses: 0, inputTokens: 0, outputTokens: 0, usd: 0, taskCostRatio: null },
  answerChars: 1,
  durationMs: 0.1,
};

const ALERTS = { window: { since: "x", until: "y" }, alerts: [] };

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Call {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

function overloaded(status = 429, retryAfter: string | null = "0"): Answer {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (retryAfter !== null) headers["Retry-After"] = retryAfter;
  const code = status === 429 ? "overloaded" : "store_unavailable";
  return { status, headers, body: JSON.stringify({ error: { code, message: "try again" } }) };
}

function ok(body: unknown): Answer {
  return { status: 200, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
}

const servers: Server[] = [];
after(async () => {
  await Promise.all(
    servers.map((s) => {
      s.closeAllConnections();
      return new Promise((r) => s.close(r));
    }),
  );
});

/** An HTTP server on a loopback port that gives the answers in order (the last one again once they run out). */
async function stub(...answers: Answer[]): Promise<{ url: string; calls: Call[] }> {
  const calls: Call[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      calls.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const a = answers.length > 1 ? answers.shift()! : answers[0]!;
      res.writeHead(a.status, a.headers);
      res.end(a.body);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

async function rejects(fn: () => Promise<unknown>): Promise<VouchError> {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof VouchError, `not a VouchError: ${String(e)}`);
    return e;
  }
  assert.fail("no error");
}

describe("retries", () => {
  it("retries 429 and 503 until an answer, with the same body and key", async () => {
    const s = await stub(overloaded(429), overloaded(503), ok(REPORT));
    const c = new VouchClient({ baseUrl: s.url, apiKey: "vk_test", maxWaitMs: 200 });
    const rep = await c.verify({ task: { goal: "g" }, output: { summary: "s" } }, { idempotencyKey: "k-1" });
    assert.equal(rep.verdict, "unverified");
    assert.equal(s.calls.length, 3);
    assert.equal(new Set(s.calls.map((x) => x.body)).size, 1);
    for (const call of s.calls) {
      assert.deepEqual([call.method, call.url], ["POST", "/v1/verify"]);
      assert.equal(call.headers["idempotency-key"], "k-1");
      assert.equal(call.headers.authorization, "Bearer vk_test");
      assert.equal(call.headers["content-type"], "application/json");
    }
  });

  it("gives up after the retries, Retry-After capped by maxWaitMs", async () => {
    const s = await stub(overloaded(429, "30"));
    const start = Date.now();
    const e = await rejects(() => new VouchClient({ baseUrl: s.url, retries: 2, maxWaitMs: 50 }).alerts());
    assert.ok(Date.now() - start < 5_000);
    assert.equal(s.calls.length, 3);
    assert.deepEqual([e.status, e.code, e.detail, e.retryAfterMs], [429, "overloaded", "try again", 30_000]);
  });

  it("waits Retry-After", async () => {
    const s = await stub(overloaded(503, "1"), ok(ALERTS));
    const start = Date.now();
    await new VouchClient({ baseUrl: s.url }).alerts();
    assert.ok(Date.now() - start >= 900);
    assert.equal(s.calls.length, 2);
  });

  it("without Retry-After waits a little", async () => {
    const s = await stub(overloaded(429, null), ok(ALERTS));
    await new VouchClient({ baseUrl: s.url }).alerts();
    assert.equal(s.calls.length, 2);
  });

  it("never retries with retries 0", async () => {
    const s = await stub(overloaded(429));
    assert.equal((await rejects(() => new VouchClient({ baseUrl: s.url, retries: 0 }).alerts())).status, 429);
    assert.equal(s.calls.length, 1);
  });

  it("does not retry other errors", async () => {
    for (const [status, code] of [
      [400, "syntax"],
      [409, "idempotency_conflict"],
      [500, "internal"],
    ] as const) {
      const s = await stub({ status, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ error: { code, message: "no" } }) });
      const e = await rejects(() => new VouchClient({ baseUrl: s.url }).alerts());
      assert.deepEqual([e.status, e.code], [status, code]);
      assert.equal(s.calls.length, 1);
    }
  });

  it("reads an error that is not JSON", async () => {
    const s = await stub({ status: 502, headers: { "Content-Type": "text/plain" }, body: "bad gateway\n" });
    const e = await rejects(() => new VouchClient({ baseUrl: s.url }).alerts());
    assert.deepEqual([e.status, e.code, e.detail], [502, "Bad Gateway", "bad gateway"]);
  });

  it("stops retrying when the caller aborts", async () => {
    const s = await stub(overloaded(429, "5"));
    const c = new VouchClient({ baseUrl: s.url, maxWaitMs: 60_000 });
    const abort = new AbortController();
    const call = c.alerts({ signal: abort.signal });
    setImmediate(() => abort.abort());
    await assert.rejects(call, { name: "AbortError" });
  });

  it("an unreachable server", async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r)); // nothing listens there now
    const e = await rejects(() => new VouchClient({ baseUrl: `http://127.0.0.1:${port}` }).alerts());
    assert.deepEqual([e.status, e.code], [0, "unreachable"]);
  });

  it("a time out", async () => {
    const server = createServer(() => {
      /* never answers */
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const e = await rejects(() => new VouchClient({ baseUrl: url, timeoutMs: 100 }).alerts());
    assert.deepEqual([e.status, e.code], [0, "timeout"]);
  });

  it("refuses a URL that is not a server's", () => {
    assert.throws(() => new VouchClient({ baseUrl: "ftp://example.com" }), TypeError);
  });
});

describe("streams and queries", () => {
  it("reads Server-Sent Events", async () => {
    const sse =
      "retry: 2000\n\n" +
      ": keep-alive\n\n" +
      'id: 7\nevent: verification:retry\ndata: {"type": "verification:retry", "attempt": 1,\ndata:  "data": {"feedback": "fix it"}}\n\n' +
      `id: 8\r\nevent: verification:complete\r\ndata: ${JSON.stringify({ type: "verification:complete", data: { report: REPORT } })}\r\n\r\n`;
    const s = await stub({ status: 200, headers: { "Content-Type": "text/event-stream" }, body: sse });
    const stream = await new VouchClient({ baseUrl: s.url }).events({ lastEventId: "6" });
    const events = [];
    for await (const ev of stream) events.push(ev);
    assert.equal(s.calls[0]!.headers["last-event-id"], "6");
    assert.equal(s.calls[0]!.headers.accept, "text/event-stream");
    assert.deepEqual(
      events.map((e) => [e.id, e.type]),
      [
        ["7", "verification:retry"],
        ["8", "verification:complete"],
      ],
    );
    assert.deepEqual(events[0]!.data.data, { feedback: "fix it" });
    assert.equal(events[0]!.report, undefined);
    assert.equal(events[1]!.report?.id, "r-1");
    assert.equal(stream.lastEventId, "8");
  });

  it("reads a batch's results", async () => {
    const body =
      JSON.stringify(REPORT) +
      "\n" +
      '{"line": 2, "error": {"code": "wrong_type", "message": "no", "path": "task"}}\n' +
      '{"line": 3, "pending": true}\n';
    const s = await stub({ status: 200, headers: { "Content-Type": "application/jsonl" }, body });
    const items = [];
    for await (const i of new VouchClient({ baseUrl: s.url }).batchResults("b-1")) items.push(i);
    assert.equal(s.calls[0]!.url, "/v1/batches/b-1/results");
    assert.deepEqual(
      items.map((i) => [i.index, i.line, i.pending]),
      [
        [0, undefined, false],
        [1, 2, false],
        [2, 3, true],
      ],
    );
    assert.equal(items[0]!.report?.id, "r-1");
    assert.equal(items[1]!.error?.path, "task");
  });

  it("escapes path parameters and encodes queries", async () => {
    const s = await stub(ok(REPORT), ok({ items: [] }));
    const c = new VouchClient({ baseUrl: s.url });
    await c.verification("a/b c", 2);
    await c.listVerifications({ needsReview: true, since: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)), executorModel: "openai:gpt" });
    assert.equal(s.calls[0]!.url, "/v1/verifications/a%2Fb%20c?attempt=2");
    assert.equal(s.calls[1]!.url, "/v1/verifications?needsReview=true&since=2026-01-02T03%3A04%3A05.000Z&executorModel=openai%3Agpt");
  });

  it("sends a batch as JSON lines", async () => {
    const s = await stub({ status: 202, headers: { "Content-Type": "application/json" }, body: "{}" });
    await new VouchClient({ baseUrl: s.url }).createBatch([{ task: { goal: "g" }, output: { summary: "s" } }, '{\n"task": {}, "output": {"summary": ""}\n}']);
    assert.equal(s.calls[0]!.headers["content-type"], "application/jsonl");
    assert.equal(s.calls[0]!.body, '{"task":{"goal":"g"},"output":{"summary":"s"}}\n{"task":{},"output":{"summary":""}}\n');
  });
});
