package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/code/treesitter"
	"github.com/vouchgate/vouch/engine"
)

// docTask is one zero-config doc task: a file as it was before the agent,
// the file as an honest agent left it (every named symbol documented), the
// file as a faulty agent left it (fewer documented than it claims), and
// what each said. The corpus comes from the shapes that sent honest work
// back (issue 12): methods named like English verbs (Open, Close, Get,
// Reset, Run, Apply), functions named like nouns (config, handler),
// TypeScript overloads and class members.
type docTask struct {
	name string
	ts   bool
	file string
	base string
	// honest are the honest versions of the file (several when the style
	// of documentation varies: JSDoc on the first overload only, or on
	// each).
	honest []string
	faulty string
	goal   string
	// honestSummary and faultySummary are what the agents said.
	honestSummary, faultySummary string
	// missing are the names the feedback to the faulty agent must name.
	missing []string
}

// doc returns src with a doc comment (//, /** */) inserted before each
// line that starts with one of the given prefixes, the first occurrence
// of each only when once is set.
func doc(src, style string, once bool, prefixes ...string) string {
	lines := strings.Split(src, "\n")
	done := map[string]bool{}
	var out []string
	for _, l := range lines {
		trim := strings.TrimLeft(l, " \t")
		indent := l[:len(l)-len(trim)]
		for _, p := range prefixes {
			if strings.HasPrefix(trim, p) && !(once && done[p]) {
				done[p] = true
				if style == "go" {
					out = append(out, indent+"// Documented.")
				} else {
					out = append(out, indent+"/** Documented. */")
				}
				break
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

const (
	goStore = `package store

import "errors"

// Store is a key-value store kept in memory.
type Store struct {
	data map[string][]byte
}

func (s *Store) Open(path string) error {
	s.data = map[string][]byte{}
	return nil
}

func (s *Store) Close() error {
	s.data = nil
	return nil
}

func (s *Store) Get(key string) ([]byte, error) {
	v, ok := s.data[key]
	if !ok {
		return nil, errors.New("store: not found")
	}
	return v, nil
}

func (s *Store) Put(key string, v []byte) error {
	s.data[key] = v
	return nil
}
`
	goJob = `package job

// Job is one unit of work.
type Job struct {
	state int
	steps []func() error
}

func (j *Job) Run() error {
	for _, s := range j.steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

func (j *Job) Reset() { j.state = 0 }

func (j *Job) Update(n int) { j.state = n }

func (j *Job) Apply(f func(int) int) { j.state = f(j.state) }
`
	goServer = `package server

import "net/http"

// Serve starts the server.
func Serve() error { return http.ListenAndServe(":8080", handler(config())) }

func config() map[string]string { return map[string]string{"addr": ":8080"} }

func handler(cfg map[string]string) http.Handler { return http.NotFoundHandler() }

func parse(s string) []string { return []string{s} }
`
	goCache = `package cache

// Cache holds values by key.
type Cache struct{ m map[string]int }

func (c *Cache) Get(k string) int { return c.m[k] }

func (c *Cache) Put(k string, v int) { c.m[k] = v }

func (c *Cache) Delete(k string) { delete(c.m, k) }

func (c *Cache) Len() int { return len(c.m) }
`
	tsEmitter = `type Handler = (...args: unknown[]) => void;

export class Emitter {
  private handlers = new Map<string, Handler[]>();

  on(event: "open", fn: () => void): this;
  on(event: "data", fn: (chunk: string) => void): this;
  on(event: "close", fn: (code: number) => void): this;
  on(event: string, fn: Handler): this {
    const list = this.handlers.get(event) ?? [];
    list.push(fn);
    this.handlers.set(event, list);
    return this;
  }

  off(event: string, fn: Handler): this {
    const list = this.handlers.get(event) ?? [];
    this.handlers.set(event, list.filter((h) => h !== fn));
    return this;
  }

  emit(event: string, ...args: unknown[]): void {
    for (const h of this.handlers.get(event) ?? []) h(...args);
  }

  once(event: string, fn: Handler): this {
    const wrap: Handler = (...args) => {
      this.off(event, wrap);
      fn(...args);
    };
    return this.on(event, wrap);
  }
}
`
	tsCli = `import { readFileSync } from "node:fs";

export function config(path: string): Record<string, string> {
  return JSON.parse(readFileSync(path, "utf8"));
}

export function parse(argv: string[]): string[] {
  return argv.filter((a) => !a.startsWith("-"));
}

export function format(args: string[]): string {
  return args.join(" ");
}

export function handler(args: string[]): number {
  console.log(format(parse(args)));
  return 0;
}
`
	tsFmt = `export function format(x: number): string;
export function format(x: Date): string;
export function format(x: number | Date): string {
  return typeof x === "number" ? x.toFixed(2) : x.toISOString();
}

export function parse(s: string): number {
  return Number(s);
}

export class Formatter {
  format(x: number): string {
    return format(x);
  }

  reset(): void {}
}
`
	tsStore = `const data = new Map<string, string>();

export function get(key: string): string | undefined {
  return data.get(key);
}

export function set(key: string, value: string): void {
  data.set(key, value);
}

export function reset(): void {
  data.clear();
}

export function update(key: string, f: (v: string) => string): void {
  const v = data.get(key);
  if (v !== undefined) data.set(key, f(v));
}
`
	tsRouter = `type Handler = (req: Request) => Response;

export class Router {
  private routes: [string, string, Handler][] = [];

  get(path: string, h: Handler): this {
    this.routes.push(["GET", path, h]);
    return this;
  }

  post(path: string, h: Handler): this {
    this.routes.push(["POST", path, h]);
    return this;
  }

  use(h: Handler): this {
    this.routes.push(["*", "*", h]);
    return this;
  }

  handle(req: Request): Response {
    for (const [m, p, h] of this.routes) {
      if ((m === "*" || m === req.method) && (p === "*" || req.url.endsWith(p))) return h(req);
    }
    return new Response("not found", { status: 404 });
  }
}
`
)

func docTasks() []docTask {
	return []docTask{
		{name: "Go Store methods named like verbs", file: "store/store.go", base: goStore,
			honest:        []string{doc(goStore, "go", false, "func (s *Store) ")},
			faulty:        doc(goStore, "go", false, "func (s *Store) Open"),
			goal:          "Add godoc comments to the Store methods Open, Close, Get and Put in store/store.go",
			honestSummary: "Added doc comments to all 4 methods of Store in store/store.go.",
			faultySummary: "Added doc comments to all 4 methods of Store in store/store.go.",
			missing:       []string{"Close", "Get", "Put"}},
		{name: "Go Job methods Run, Reset, Update, Apply", file: "job/job.go", base: goJob,
			honest:        []string{doc(goJob, "go", false, "func (j *Job) ")},
			faulty:        doc(goJob, "go", false, "func (j *Job) Run", "func (j *Job) Reset"),
			goal:          "Document the methods Run, Reset, Update and Apply of Job in job/job.go",
			honestSummary: "Added a doc comment to each of the 4 methods of Job.",
			faultySummary: "Added doc comments to all four methods of Job.",
			missing:       []string{"Update", "Apply"}},
		{name: "Go functions named like nouns", file: "server/server.go", base: goServer,
			honest:        []string{doc(goServer, "go", false, "func config", "func handler", "func parse")},
			faulty:        doc(goServer, "go", false, "func parse"),
			goal:          "Add doc comments to the functions config, handler and parse in server/server.go",
			honestSummary: "Added doc comments to the 3 functions config, handler and parse.",
			faultySummary: "Added doc comments to all 3 functions.",
			missing:       []string{"config", "handler"}},
		{name: "Go names listed without a noun", file: "store/store.go", base: goStore,
			honest:        []string{doc(goStore, "go", false, "func (s *Store) ")},
			faulty:        doc(goStore, "go", false, "func (s *Store) Open", "func (s *Store) Get"),
			goal:          "Write godoc for Open, Close, Get and Put in store/store.go",
			honestSummary: "Wrote godoc comments for all 4 methods.",
			faultySummary: "Wrote godoc comments for all 4 methods.",
			missing:       []string{"Close", "Put"}},
		{name: "Go qualified Cache methods", file: "cache/cache.go", base: goCache,
			honest:        []string{doc(goCache, "go", false, "func (c *Cache) ")},
			faulty:        doc(goCache, "go", false, "func (c *Cache) Get", "func (c *Cache) Put", "func (c *Cache) Delete"),
			goal:          "Add godoc comments to Cache.Get, Cache.Put, Cache.Delete and Cache.Len in cache/cache.go",
			honestSummary: "Added godoc comments to all 4 Cache methods.",
			faultySummary: "Added godoc comments to all 4 Cache methods.",
			missing:       []string{"Len"}},
		{name: "TS class with overloaded on", ts: true, file: "src/emitter.ts", base: tsEmitter,
			honest: []string{
				doc(tsEmitter, "ts", true, "on(", "off(", "emit(", "once("),
				doc(tsEmitter, "ts", false, "on(", "off(", "emit(", "once("),
			},
			faulty:        doc(tsEmitter, "ts", true, "on(", "emit("),
			goal:          "Add JSDoc comments to the methods on, off, emit and once of the Emitter class in src/emitter.ts",
			honestSummary: "Added JSDoc comments to all 4 methods of Emitter.",
			faultySummary: "Added JSDoc comments to all 4 methods of Emitter.",
			missing:       []string{"off", "once"}},
		{name: "TS module functions named like nouns", ts: true, file: "src/cli.ts", base: tsCli,
			honest:        []string{doc(tsCli, "ts", false, "export function ")},
			faulty:        doc(tsCli, "ts", false, "export function parse", "export function format"),
			goal:          "Add JSDoc to the exported functions config, parse, format and handler in src/cli.ts",
			honestSummary: "Added JSDoc to all 4 exported functions in src/cli.ts.",
			faultySummary: "Added JSDoc to all 4 exported functions in src/cli.ts.",
			missing:       []string{"config", "handler"}},
		{name: "TS exported functions with overloads and a class", ts: true, file: "src/fmt.ts", base: tsFmt,
			honest: []string{
				doc(tsFmt, "ts", true, "export function format", "export function parse"),
				doc(tsFmt, "ts", false, "export function format", "export function parse"),
			},
			faulty:        doc(tsFmt, "ts", true, "export function parse"),
			goal:          "Add JSDoc comments to the exported functions in src/fmt.ts",
			honestSummary: "Added JSDoc comments to the 2 exported functions in src/fmt.ts.",
			faultySummary: "Added JSDoc comments to the 2 exported functions in src/fmt.ts.",
			missing:       []string{"format"}},
		{name: "TS functions named like verbs", ts: true, file: "src/store.ts", base: tsStore,
			honest:        []string{doc(tsStore, "ts", false, "export function ")},
			faulty:        doc(tsStore, "ts", false, "export function get", "export function set", "export function reset"),
			goal:          "Add JSDoc comments to the functions get, set, reset and update in src/store.ts",
			honestSummary: "Added JSDoc comments to all 4 functions in src/store.ts.",
			faultySummary: "Added JSDoc comments to all 4 functions in src/store.ts.",
			missing:       []string{"update"}},
		{name: "TS Router methods", ts: true, file: "src/router.ts", base: tsRouter,
			honest:        []string{doc(tsRouter, "ts", false, "get(", "post(", "use(", "handle(")},
			faulty:        doc(tsRouter, "ts", false, "get(", "post("),
			goal:          "Document the Router methods get, post, use and handle in src/router.ts",
			honestSummary: "Added JSDoc comments to all four Router methods.",
			faultySummary: "Added JSDoc comments to all four Router methods.",
			missing:       []string{"use", "handle"}},
	}
}

// TestDocTasks runs the doc-task corpus: every honest output must pass and
// every faulty one be sent back with feedback naming what is undocumented.
func TestDocTasks(t *testing.T) {
	eng, err := engine.New(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var honest, alarms, faulty, caught int
	for _, d := range docTasks() {
		if d.ts && !treesitter.Available {
			continue
		}
		req := func(summary string) string {
			return fmt.Sprintf(`{"task":{"goal":%q},"output":{"summary":%q,"modified":[%q]}}`, d.goal, summary, d.file)
		}
		for i, h := range d.honest {
			c := e2eCase{name: fmt.Sprintf("%s/honest%d", d.name, i+1), base: map[string]string{d.file: d.base}, work: map[string]string{d.file: h}, request: req(d.honestSummary)}
			t.Run(c.name, func(t *testing.T) {
				honest++
				rep := verify(t, eng, c, build(t, c.base, c.work, nil, nil, false))
				if rep.Verdict != vouch.VerdictPass {
					alarms++
					t.Errorf("false alarm: %s %s\n%s", rep.Verdict, rep.Action, rep.Feedback)
				}
			})
		}
		// The faulty version, and one that documented nothing at all (the
		// file touched, but no doc comment added).
		for i, work := range []string{d.faulty, d.base + "\n"} {
			c := e2eCase{name: fmt.Sprintf("%s/faulty%d", d.name, i+1), base: map[string]string{d.file: d.base}, work: map[string]string{d.file: work}, request: req(d.faultySummary)}
			t.Run(c.name, func(t *testing.T) {
				faulty++
				rep := verify(t, eng, c, build(t, c.base, c.work, nil, nil, false))
				if rep.Verdict == vouch.VerdictPass {
					t.Errorf("missed: passed\n%v", rep.Checks)
					return
				}
				caught++
				for _, s := range d.missing {
					if !strings.Contains(rep.Feedback, s) {
						t.Errorf("feedback does not name %q:\n%s", s, rep.Feedback)
					}
				}
			})
		}
	}
	t.Logf("doc tasks: honest outputs sent back: %d of %d; faulty outputs caught: %d of %d", alarms, honest, caught, faulty)
}
