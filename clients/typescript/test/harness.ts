/**
 * The vouch server the tests run against.
 *
 * With VOUCH_SERVER set, the tests use that server (and VOUCH_API_KEY, when
 * set, as their key). Otherwise they start `vouch serve` themselves, on a
 * free loopback port with a store in a temporary directory and an admin key
 * made for the run: the binary is VOUCH_BIN, else one built with `go build`
 * from this repository. When neither is possible, {@link startServer}
 * returns a reason to skip.
 *
 * @module
 */

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The repository root: clients/typescript/dist/test/../../../.. */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");

const START_TIMEOUT_MS = 60_000;
const BUILD_TIMEOUT_MS = 1_200_000;

/** A running server. */
export interface Server {
  /** Its base URL. */
  url: string;
  /** The key the tests authenticate with; undefined in open mode. */
  apiKey: string | undefined;
  /** Whether the server asks every caller for a key. */
  keyed: boolean;
  /** The last lines the server wrote on standard error. */
  log(): string;
  /** Stops a server the tests started, and removes its store. */
  stop(): Promise<void>;
}

/** Returns the server of the tests, or why there is none. */
export async function startServer(): Promise<Server | { skip: string }> {
  const url = process.env.VOUCH_SERVER?.replace(/\/+$/, "");
  if (url) {
    await waitReady(url, Date.now() + START_TIMEOUT_MS);
    const probe = await fetch(url + "/v1/alerts");
    await probe.arrayBuffer();
    const keyed = probe.status === 401;
    return { url, apiKey: process.env.VOUCH_API_KEY || undefined, keyed, log: () => "", stop: async () => {} };
  }
  const bin = binary();
  if (typeof bin !== "string") return bin;
  return start(bin);
}

function binary(): string | { skip: string } {
  const b = process.env.VOUCH_BIN;
  if (b) return b;
  if (!existsSync(join(REPO, "go.mod"))) {
    return { skip: "no server to test against: set VOUCH_SERVER (a running vouch serve) or VOUCH_BIN (a vouch binary)" };
  }
  const dir = mkdtempSync(join(tmpdir(), "vouch-nodetest-bin-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const out = join(dir, "vouch");
  try {
    execFileSync("go", ["build", "-o", out, "./cmd/vouch"], { cwd: REPO, stdio: "inherit", timeout: BUILD_TIMEOUT_MS });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") {
      return { skip: "no server to test against: set VOUCH_SERVER or VOUCH_BIN, or install Go to build one" };
    }
    throw e;
  }
  return out;
}

async function start(bin: string): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), "vouch-nodetest-"));
  const store = join(dir, "vouch.db");
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("VOUCH_")) env[k] = v;
  env.VOUCH_LOG_LEVEL = "warn";
  const made = execFileSync(
    bin,
    ["keys", "create", "--store", store, "--tenant", "clients-test", "--scope", "admin", "--name", "node-tests", "--json"],
    { env, timeout: 60_000 },
  );
  const apiKey = (JSON.parse(made.toString()) as { key: string }).key;
  const proc: ChildProcess = spawn(bin, ["serve", "--addr", "127.0.0.1:0", "--store", store, "--no-dashboard", "--no-mcp"], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const tail: string[] = [];
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      const killer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`vouch serve did not start in time:\n${tail.join("\n")}`)), START_TIMEOUT_MS);
    const prefix = "vouch serve: listening on ";
    createInterface({ input: proc.stderr! }).on("line", (line) => {
      tail.push(line);
      if (tail.length > 200) tail.shift();
      if (line.startsWith(prefix)) {
        clearTimeout(timer);
        resolve(line.slice(prefix.length).split(" ")[0]!);
      }
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`vouch serve exited (${code}):\n${tail.join("\n")}`));
    });
  }).catch(async (e: unknown) => {
    await stop();
    throw e;
  });
  await waitReady(url, Date.now() + START_TIMEOUT_MS);
  return { url, apiKey, keyed: true, log: () => tail.join("\n"), stop };
}

/** Polls /readyz until the server answers 200, or the deadline. */
async function waitReady(url: string, deadline: number): Promise<void> {
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url + "/readyz", { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
      last = res.status;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} is not ready: ${String(last)}`);
}
