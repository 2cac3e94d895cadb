/**
 * vouch as a guardrail around a tool-calling agent loop.
 *
 * The agent answers a customer about an order. It may call one tool,
 * `get_order`; the guardrail verifies each answer before the customer sees
 * it, with the tool calls of that attempt as evidence (the request's trace):
 * the answer must come from a `get_order` call, and quote the total that
 * call returned. An answer sent back goes to the model again with vouch's
 * feedback; one that passes is delivered; anything else is escalated.
 *
 * The model is a stand-in: on its first try it answers from memory (a total
 * the order does not have); told that it did not call `get_order`, it calls
 * it and answers from the result. Every criterion is decided by a rule (no
 * judge model is needed), so the run ends the same way every time: attempt 1
 * is sent back, attempt 2 passes.
 *
 * ```sh
 * vouch serve &            # or: go run ./cmd/vouch serve &
 * npm run example          # VOUCH_SERVER, VOUCH_API_KEY if set
 * ```
 *
 * @module
 */

import { pathToFileURL } from "node:url";
import { randomUUID } from "node:crypto";
import { VouchClient, type Report, type TraceEntry } from "../src/index.js";

/** The most attempts before the guardrail escalates. */
export const MAX_ATTEMPTS = 3;

/** A message of the conversation the model sees. */
interface Message {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
}

/** A call the model asks for. */
interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** The orders the tool knows. */
const ORDERS: Record<string, { order: string; status: string; total: string }> = {
  "A-1042": { order: "A-1042", status: "shipped", total: "$84.20" },
};

/** The tools the model may call. */
const TOOLS: Record<string, (args: Record<string, unknown>) => unknown> = {
  get_order: (args) => ORDERS[String(args.order_id)] ?? { error: "no such order" },
};

/**
 * The stand-in for a model: answers from memory until a system message
 * (the guardrail's feedback) names get_order, then calls it and answers
 * from what it returned.
 */
function model(messages: Message[]): { content?: string; toolCalls?: ToolCall[] } {
  const last = messages[messages.length - 1]!;
  if (last.role === "tool") {
    const order = JSON.parse(last.content) as { order: string; status: string; total: string };
    return { content: `Order ${order.order} has ${order.status}; the total was ${order.total}.` };
  }
  // The first message is the instructions; a later system message is the
  // guardrail's feedback.
  const told = messages.some((m, i) => i > 0 && m.role === "system" && m.content.includes("get_order"));
  if (told) {
    return { toolCalls: [{ id: `call_${messages.length}`, name: "get_order", arguments: { order_id: "A-1042" } }] };
  }
  return { content: "Order A-1042 has shipped; the total was $48.20." };
}

/** Runs the model and its tool calls until it answers; returns the answer and the calls, as vouch's trace. */
function agentTurn(messages: Message[]): { answer: string; trace: TraceEntry[] } {
  const trace: TraceEntry[] = [];
  for (;;) {
    const reply = model(messages);
    if (!reply.toolCalls) {
      messages.push({ role: "assistant", content: reply.content ?? "" });
      return { answer: reply.content ?? "", trace };
    }
    messages.push({ role: "assistant", content: "", toolCalls: reply.toolCalls });
    for (const call of reply.toolCalls) {
      const output = TOOLS[call.name]!(call.arguments);
      trace.push({ id: call.id, tool: call.name, input: call.arguments, output });
      messages.push({ role: "tool", content: JSON.stringify(output), toolCallId: call.id });
    }
  }
}

/** The guardrail: verifies an answer against the tool calls it was made from. */
function check(client: VouchClient, taskId: string, attempt: number, answer: string, trace: TraceEntry[]): Promise<Report> {
  return client.verify({
    id: taskId,
    attempt,
    task: {
      id: taskId,
      goal: "Answer the customer: what is the status and total of order A-1042?",
      criteria: [
        { id: "lookup", text: "looks the order up with get_order", must: true, check: { type: "tool_called", tool: "get_order" } },
        {
          id: "total",
          text: "quotes the total get_order returned",
          must: true,
          check: {
            type: "cel",
            expr: "has(request.trace) && request.trace.exists(t, t.tool == 'get_order' && has(t.output.total) && summary.contains(t.output.total))",
          },
        },
      ],
    },
    trace,
    output: { summary: answer, toolCalls: trace.map((t) => t.tool) },
  });
}

/** Runs the conversation with the guardrail; returns the delivered answer, or undefined when escalated. */
export async function run(client: VouchClient, log: (line: string) => void = console.log): Promise<string | undefined> {
  const taskId = `order-status-${randomUUID().slice(0, 8)}`;
  const messages: Message[] = [
    { role: "system", content: "You answer customers about their orders. Tools: get_order(order_id)." },
    { role: "user", content: "What is the status and total of order A-1042?" },
  ];
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const { answer, trace } = agentTurn(messages);
    const report = await check(client, taskId, attempt, answer, trace);
    log(`attempt ${attempt}: ${report.verdict} (${report.action}) - ${report.reason ?? ""}`);
    if (report.verdict === "pass") {
      const retries = attempt - 1;
      log(`result: pass after ${retries} ${retries === 1 ? "retry" : "retries"}`);
      log(`to the customer: ${answer}`);
      return answer;
    }
    if (report.verdict !== "retry") break; // fail, unverified: a person decides
    log("  feedback to the model:");
    for (const line of report.feedback.split("\n")) log(`    ${line}`);
    messages.push({ role: "system", content: report.feedback });
  }
  log("result: escalated to a person");
  return undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const answer = await run(new VouchClient());
  process.exitCode = answer === undefined ? 1 : 0;
}
