/**
 * Every call of the client against a real `vouch serve` (see harness.ts),
 * and the example's run.
 */

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";

import { run as runGuardrail } from "../examples/guardrail.js";
import { VouchClient, VouchError, type Report, type Request, type VouchEvent } from "../src/index.js";
import { startServer, type Server } from "./harness.js";

const READ_TIMEOUT_MS = 30_000;

let server: Server | undefined;
let skip: string | undefined;
let client: VouchClient;
const runId = `ts-${randomUUID().slice(0, 12)}`;
const rid = (name: string) => `${runId}-${name}`;

/** A request whose one must-pass criterion a rule decides: the summary says DONE, or it does not. */
function releaseRequest(id: string, attempt: number, done: boolean): Request {
  return {
    id,
    attempt,
    task: {
      id,
      goal: "Say when the release is done",
      criteria: [{ id: "done", text: "says DONE", must: true, check: { type: "contains", value: "DONE" } }],
    },
    output: { summary: done ? "Release 1.4 is DONE." : "Release 1.4 is not finished." },
  };
}

async function verifyDone(name: string): Promise<[Report, Report]> {
  const first = await client.verify(releaseRequest(rid(name), 1, false));
  const second = await client.verify(releaseRequest(rid(name), 2, true));
  return [first, second];
}

/** Runs fn, which must throw a VouchError, and returns it. */
async function rejects(fn: () => Promise<unknown>): Promise<VouchError> {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof VouchError, `not a VouchError: ${String(e)}`);
    return e;
  }
  assert.fail("no error");
}

/** Reads events until the verification:complete of reportId. */
async function readUntil(stream: AsyncIterable<VouchEvent>, reportId: string): Promise<VouchEvent> {
  for await (const ev of stream) {
    if (ev.report?.id === reportId) return ev;
  }
  assert.fail(`the stream ended before the event of ${reportId}`);
}

before(async () => {
  const s = await startServer();
  if ("skip" in s) {
    skip = s.skip;
    return;
  }
  server = s;
  client = new VouchClient({ baseUrl: s.url, apiKey: s.apiKey ?? "", timeoutMs: 60_000 });
});

after(async () => {
  await server?.stop();
});

describe("VouchClient against vouch serve", () => {
  const test = (name: string, fn: () => Promise<void>) =>
    it(name, async (t) => {
      if (skip) return t.skip(skip);
      await fn();
    });

  test("verify: sent back, then passed", async () => {
    const [first, second] = await verifyDone("verify");
    assert.equal(first.verdict, "retry");
    assert.equal(first.action, "retry");
    assert.equal(first.attempt, 1);
    assert.match(first.feedback, /does not contain "DONE"/);
    assert.equal(first.criteria[0]!.status, "unmet");
    assert.equal(second.verdict, "pass");
    assert.equal(second.score, 1);
  });

  test("verify: unverified", async () => {
    const rep = await client.verify({ id: rid("unverified"), task: { goal: "Summarise the meeting" }, output: { summary: "ok" } });
    assert.equal(rep.verdict, "unverified");
    assert.equal(rep.score, null);
    assert.ok(rep.warnings.some((w) => w.code === "NOTHING_DECIDED"));
  });

  test("verifyRaw: replays, and conflicts on another body", async () => {
    const body = JSON.stringify(releaseRequest(rid("raw"), 1, true));
    const a = await client.verifyRaw(body);
    assert.equal(a.replayed, false);
    const b = await client.verifyRaw(body);
    assert.equal(b.replayed, true);
    assert.equal(b.report, a.report);
    const e = await rejects(() => client.verifyRaw(body.replace("DONE.", "DONE!")));
    assert.equal(e.status, 409);
    assert.ok(e.isConflict);
    assert.equal(e.code, "idempotency_conflict");
  });

  test("verify: idempotency key", async () => {
    const key = rid("key");
    const a = await client.verify(releaseRequest(rid("key-a"), 1, true), { idempotencyKey: key });
    const b = await client.verify(releaseRequest(rid("key-a"), 1, true), { idempotencyKey: key });
    assert.deepEqual(a, b);
    const e = await rejects(() => client.verify(releaseRequest(rid("key-b"), 1, true), { idempotencyKey: key }));
    assert.ok(e.isConflict);
  });

  test("bad input: 400 with every problem", async () => {
    const e = await rejects(() => client.verifyRaw('{"task": {"goal": 3, "bogus": 1}, "output": {}}'));
    assert.equal(e.status, 400);
    assert.equal(e.code, "wrong_type");
    assert.equal(e.detail, "got number, want string");
    assert.deepEqual(
      e.problems.map((p) => [p.code, p.path]),
      [
        ["wrong_type", "task.goal"],
        ["unknown_field", "task.bogus"],
        ["missing", "output.summary"],
      ],
    );
    assert.equal(e.problems[0]!.line, 1);
    assert.match(e.message, /400 wrong_type: .*\(and 2 more problems\)/);
  });

  test("bad key: 401", async () => {
    const bad = new VouchClient({ baseUrl: server!.url, apiKey: "vk_nope_0000", retries: 0 });
    const e = await rejects(() => bad.verify(releaseRequest(rid("badkey"), 1, true)));
    assert.equal(e.status, 401);
    assert.equal(e.code, "unauthorized");
    assert.match(e.detail, /unknown or revoked/);
    const s = await rejects(() => bad.events());
    assert.equal(s.status, 401);
  });

  test("no key: 401", async () => {
    if (!server!.keyed) return; // open mode: a call without a key is allowed
    const saved = process.env.VOUCH_API_KEY;
    delete process.env.VOUCH_API_KEY;
    try {
      const e = await rejects(() => new VouchClient({ baseUrl: server!.url }).alerts());
      assert.equal(e.status, 401);
    } finally {
      if (saved !== undefined) process.env.VOUCH_API_KEY = saved;
    }
  });

  test("the key and server from the environment", async () => {
    const saved = { key: process.env.VOUCH_API_KEY, url: process.env.VOUCH_SERVER };
    try {
      process.env.VOUCH_SERVER = server!.url;
      process.env.VOUCH_API_KEY = "vk_nope_0000";
      const e = await rejects(() => new VouchClient().alerts());
      assert.equal(e.status, 401);
      process.env.VOUCH_API_KEY = server!.apiKey ?? "";
      const c = new VouchClient();
      assert.equal(c.baseUrl, server!.url);
      assert.ok(Array.isArray((await c.alerts()).alerts));
    } finally {
      for (const [k, v] of [["VOUCH_API_KEY", saved.key], ["VOUCH_SERVER", saved.url]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  test("verifyTask: rules and criteria_match", async () => {
    const rules = await client.verifyTask({
      task_description: `Give the capital of France (${runId})`,
      success_criteria: ["names Paris as the capital"],
      task_output: "The capital of France is Paris.",
    });
    assert.equal(rules.verdict, "unverified");
    assert.equal(rules.scoring_mode, "rules");
    assert.equal(rules.aggregate_score, null);
    assert.equal(rules.criteria_scores[0]!.met, null);
    const matched = await client.verifyTask({
      task_description: `Give the capital of France (${runId})`,
      success_criteria: ["Paris is the capital"],
      task_output: "The capital of France is Paris.",
      scoring_mode: "criteria_match",
    });
    assert.equal(matched.verdict, "pass");
    assert.deepEqual(matched.criteria_scores[0]!.match?.matched_words.sort(), ["capital", "paris"]);
    assert.notEqual(matched.id, rules.id);
    const e = await rejects(() => client.verifyTask({ task_output: "x", scoring_mode: "vibes" as "rules" }));
    assert.equal(e.status, 400);
  });

  test("batches: submit, wait, results", async () => {
    const status = await client.createBatch([
      releaseRequest(rid("batch-1"), 1, true),
      { id: rid("batch-2"), task: { goal: "g" }, output: { summary: "s" } },
      `{"id": "${rid("b3")}", "task": {"goal": 3}, "output": {"summary": "s"}}`,
    ]);
    assert.equal(status.total, 3);
    assert.equal(status.failed, 1);
    const done = await client.waitBatch(status.id, { timeoutMs: 120_000 });
    assert.equal(done.state, "done");
    assert.deepEqual([done.done, done.failed, done.pending], [2, 1, 0]);
    assert.ok(done.finishedAt);
    assert.deepEqual(await client.batch(status.id), done);
    const items = [];
    for await (const item of client.batchResults(status.id)) items.push(item);
    assert.deepEqual(
      items.map((i) => i.index),
      [0, 1, 2],
    );
    assert.equal(items[0]!.report?.id, rid("batch-1"));
    assert.equal(items[0]!.report?.verdict, "pass");
    assert.equal(items[1]!.report?.verdict, "unverified");
    assert.equal(items[2]!.report, undefined);
    assert.equal(items[2]!.error?.code, "wrong_type");
    assert.equal(items[2]!.line, 3);
    assert.ok((await rejects(() => client.batch("b-no-such-batch"))).isNotFound);
  });

  test("the log: one, a page, every page", async () => {
    await verifyDone("log");
    const id = rid("log");
    const latest = await client.verification(id);
    assert.equal(latest.attempt, 2);
    assert.equal(latest.overrides, undefined);
    assert.equal((await client.verification(id, 1)).verdict, "retry");
    const page = await client.listVerifications({ taskId: id, limit: 1 });
    assert.equal(page.items.length, 1);
    assert.deepEqual([page.items[0]!.id, page.items[0]!.attempt], [id, 2]);
    assert.ok(page.next);
    const next = await client.listVerifications({ taskId: id, limit: 1, cursor: page.next });
    assert.equal(next.items[0]!.attempt, 1);
    const all = [];
    for await (const s of client.iterVerifications({ taskId: id, limit: 1 })) all.push([s.attempt, s.verdict]);
    assert.deepEqual(all, [
      [2, "pass"],
      [1, "retry"],
    ]);
    const retries = await client.listVerifications({ taskId: id, verdict: "retry", since: new Date(Date.now() - 3_600_000) });
    assert.deepEqual(
      retries.items.map((s) => s.attempt),
      [1],
    );
    const e = await rejects(() => client.verification(rid("no-such")));
    assert.ok(e.isNotFound);
    assert.equal(e.code, "not_found");
  });

  test("labels: overrides and outcomes", async () => {
    await verifyDone("labels");
    const id = rid("labels");
    const ov = await client.override(id, { verdict: "fail", reason: "the notes it cites do not exist" });
    assert.deepEqual([ov.verificationId, ov.attempt, ov.verdict], [id, 2, "fail"]);
    assert.ok(ov.reviewer);
    const ov1 = await client.override(id, { verdict: "pass", reviewer: "ana", attempt: 1, reason: "fine" });
    assert.deepEqual([ov1.attempt, ov1.reviewer], [1, "ana"]);
    assert.deepEqual(
      (await client.verification(id)).overrides?.map((o) => o.verdict),
      ["fail"],
    );
    const oc = await client.outcome({ verificationId: id, good: false, detail: "rolled back" });
    assert.deepEqual([oc.verificationId, oc.attempt, oc.good], [id, 2, false]);
    const byTask = await client.outcome({ taskId: id, good: true, reporter: "ci" });
    assert.deepEqual([byTask.verificationId, byTask.reporter], [id, "ci"]);
    assert.equal((await rejects(() => client.override(id, { verdict: "maybe" as "pass" }))).status, 400);
    assert.ok((await rejects(() => client.override(rid("no-such"), { verdict: "pass" }))).isNotFound);
    assert.ok((await rejects(() => client.outcome({ taskId: rid("no-such-task"), good: true }))).isNotFound);
  });

  test("metrics and alerts", async () => {
    await verifyDone("metrics");
    const m = await client.metrics();
    assert.ok((m.verifications ?? 0) >= 2);
    assert.ok(m.verdicts && "unverified" in m.verdicts);
    assert.ok(m.window?.since);
    const recent = await client.metrics({ window: "1h", kind: "subtask" });
    assert.ok((recent.verifications ?? 0) >= 2);
    const since = await client.metrics({ since: new Date(Date.now() - 86_400_000) });
    assert.ok((since.verifications ?? 0) >= 2);
    assert.equal((await rejects(() => client.metrics({ window: "a while" }))).status, 400);
    const alerts = await client.alerts();
    assert.deepEqual(alerts.alerts.map((a) => a.name).sort(), ["catchRate", "falseAlarmRate", "retrySuccess", "taskCostRatio", "unverifiedRate"]);
  });

  test("calibration and examples", async () => {
    await verifyDone("calibration");
    await client.override(rid("calibration"), { verdict: "retry", reason: "too terse" });
    const cal = await client.calibration({ window: "720h" });
    assert.equal(typeof cal.enough, "boolean");
    assert.ok(cal.message);
    try {
      assert.equal(typeof (await client.calibrationPatch({ minLabels: 1 })), "string");
    } catch (e) {
      assert.ok(e instanceof VouchError && e.status === 409, String(e)); // nothing suggested
    }
    const ex = await client.examples({ perClass: 5 });
    assert.ok(ex.examples?.some((x) => x.reason === "too terse"));
    assert.match(await client.examplesPatch({ perClass: 5 }), /too terse/);
  });

  test("events: resume after an id", async () => {
    const [a, b, c] = [rid("event-a"), rid("event-b"), rid("event-c")];
    await client.verify(releaseRequest(a, 1, true));

    // From the start of the tenant's stream, up to A's event.
    let stream = await client.events({ lastEventId: "0", signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
    const afterA = await readUntil(stream, a);
    assert.equal(stream.lastEventId, afterA.id);

    await client.verify(releaseRequest(b, 1, false));
    stream = await client.events({ lastEventId: afterA.id, signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
    const seen: VouchEvent[] = [];
    for await (const ev of stream) {
      seen.push(ev);
      if (ev.report?.id === b) break;
    }
    assert.ok(seen.length > 0);
    assert.ok(seen.every((ev) => Number(ev.id) > Number(afterA.id)));
    assert.ok(!seen.some((ev) => ev.report?.id === a));
    const complete = seen[seen.length - 1]!;
    assert.equal(complete.type, "verification:complete");
    assert.equal(complete.data.type, "verification:complete");
    assert.equal(complete.data.attempt, 1);
    assert.equal(stream.lastEventId, complete.id);

    // Without an id the stream starts with the events stored from now.
    stream = await client.events({ signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
    await client.verify(releaseRequest(c, 1, true));
    const ev = await readUntil(stream, c);
    assert.ok(Number(ev.id) > Number(complete.id));
    stream.close();

    assert.equal((await rejects(() => client.events({ lastEventId: "not-an-id" }))).status, 400);
  });

  test("the example: a guardrail passes after one retry", async () => {
    const lines: string[] = [];
    const answer = await runGuardrail(client, (l) => lines.push(l));
    assert.equal(answer, "Order A-1042 has shipped; the total was $84.20.");
    assert.match(lines[0]!, /^attempt 1: retry \(retry\)/);
    assert.ok(lines.some((l) => l.toLowerCase().includes('tool "get_order" is neither in a trace')));
    assert.ok(lines.some((l) => /^attempt 2: pass \(accept\)/.test(l)));
    assert.ok(lines.includes("result: pass after 1 retry"));
  });
});
