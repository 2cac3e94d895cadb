/**
 * The TypeScript client of vouch, a verification gate for AI agent outputs.
 *
 * ```ts
 * import { VouchClient } from "@vouchgate/client";
 *
 * const client = new VouchClient(); // VOUCH_SERVER (default http://127.0.0.1:8080), VOUCH_API_KEY
 * const report = await client.verify({
 *   task: {
 *     goal: "Say when the release is done",
 *     criteria: [{ text: "says DONE", must: true, check: { type: "contains", value: "DONE" } }],
 *   },
 *   output: { summary: "Release 1.4 is DONE." },
 * });
 * console.log(report.verdict, report.feedback);
 * ```
 *
 * {@link VouchClient} makes the calls of `vouch serve`'s HTTP API; the types
 * of its requests and answers are generated from the server's OpenAPI
 * document (./types.js).
 *
 * @module
 */

export * from "./client.js";
export * from "./types.js";
