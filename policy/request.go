package policy

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/strict"
)

// requestPath is the path of a request's policy overrides; errors about
// them are prefixed with it.
const requestPath = "task.policy"

// requestKeys are the top-level keys a request may set, each under the
// tighten-only rule checked by [widenings]. A key missing here (judge, or a
// key added to [vouch.Policy] later) is refused: requests fail closed.
var requestKeys = map[string]bool{
	"passAt": true, "failBelow": true, "reviewBelow": true,
	"maxRetries": true, "maxRefuted": true, "onUnverified": true, "weights": true,
	"claims": true, "commands": true, "errorWords": true,
	"pluginSchemas": true, "advisoryPlugins": true, "infer": true, "requiredTopics": true,
	"timeout": true, "limits": true,
}

// ApplyRequest applies a request's task.policy (raw JSON, as in
// [vouch.Task].Policy) on top of base, the policy in force, and validates
// the result. Empty or null raw leaves base as it is.
//
// A request may tighten base but never widen it (see the package doc);
// each widening is a [vouch.ErrWiden] error naming the key and what is not
// allowed. Every problem is reported, with paths prefixed "task.policy" and
// no file or line (positions inside the raw message would not match the
// request's file). On error the policy is the zero Policy. base is not
// modified.
func ApplyRequest(base vouch.Policy, raw []byte) (vouch.Policy, error) {
	p := clonePolicy(base)
	if len(bytes.TrimSpace(raw)) == 0 {
		return p, nil
	}
	doc, err := strict.Parse(raw, readOptions(true))
	if err != nil {
		return vouch.Policy{}, requestErrors(vouch.ErrorList(err))
	}
	// The layer is decoded into p at once: no trial decode.
	l, err := newLayer("", doc, &p)
	if err != nil {
		return vouch.Policy{}, requestErrors(vouch.ErrorList(err))
	}
	if l.data == nil {
		return p, nil
	}
	normalize(&p)
	errs := widenings(&base, &p, l)
	errs = append(errs, vouch.ErrorList(p.Validate())...)
	if len(errs) > 0 {
		return vouch.Policy{}, requestErrors(errs)
	}
	return p, nil
}

// requestErrors prefixes the paths of errors found in a task.policy and
// drops their positions.
func requestErrors(list []*vouch.Error) error {
	out := make(vouch.Errors, len(list))
	for i, e := range list {
		c := *e
		c.Path = vouch.JoinPath(requestPath, c.Path)
		c.File, c.Line, c.Column = "", 0, 0
		out[i] = &c
	}
	return errorOf(out)
}

// widenings returns an error for each way r, base with the request layer l
// applied, is wider than base.
func widenings(base, r *vouch.Policy, l *Layer) vouch.Errors {
	var errs vouch.Errors
	widen := func(path, format string, args ...any) {
		errs = append(errs, &vouch.Error{Code: vouch.ErrWiden, Path: path, Message: fmt.Sprintf(format, args...)})
	}
	var set []string
	if l != nil && l.doc != nil {
		set = l.doc.Members()
	}
	for _, key := range policyKeys() {
		if slices.Contains(set, key) && !requestKeys[key] {
			switch key {
			case "judge":
				widen(key, "a request may not configure the judge: its models, cost and credentials are the operator's")
			case "tools":
				widen(key, "a request may not map tool names: which calls count as evidence is the operator's")
			case "memory":
				widen(key, "a request may not tune the memory: it is shared by every interaction of the operator's")
			default:
				widen(key, "a request may not set %s", key)
			}
		}
	}

	if r.PassAt < base.PassAt {
		widen("passAt", "a request may only raise passAt (in force %v, requested %v)", base.PassAt, r.PassAt)
	}
	if r.FailBelow < base.FailBelow {
		widen("failBelow", "a request may only raise failBelow (in force %v, requested %v)", base.FailBelow, r.FailBelow)
	}
	if r.ReviewBelow < base.ReviewBelow {
		widen("reviewBelow", "a request may only raise reviewBelow (in force %v, requested %v)", base.ReviewBelow, r.ReviewBelow)
	}
	if r.MaxRetries > base.MaxRetries {
		widen("maxRetries", "a request may only lower maxRetries (in force %d, requested %d)", base.MaxRetries, r.MaxRetries)
	}
	if r.MaxRefuted > base.MaxRefuted {
		widen("maxRefuted", "a request may only lower maxRefuted (in force %d, requested %d)", base.MaxRefuted, r.MaxRefuted)
	}
	if r.OnUnverified.Strictness() >= 0 && r.OnUnverified.Strictness() < base.OnUnverified.Strictness() {
		widen("onUnverified", "a request may only make onUnverified stricter (accept, follow_up, escalate, fail; in force %s, requested %s)", base.OnUnverified, r.OnUnverified)
	}
	// Weights are free: they change emphasis, not what runs.

	if r.Claims.SizeTolerance > base.Claims.SizeTolerance {
		widen("claims.sizeTolerance", "a request may only shrink the size tolerance (in force %v, requested %v)", base.Claims.SizeTolerance, r.Claims.SizeTolerance)
	}
	if base.Claims.StrictIsMustPass && !r.Claims.StrictIsMustPass {
		widen("claims.strictIsMustPass", "a request may not switch off must-pass strict claim checks")
	}

	for i, rule := range r.Commands.Allow {
		if len(rule.Run) > 0 && !coveredBy(rule, base.Commands.Allow) {
			widen(fmt.Sprintf("commands.allow[%d]", i), "a request may only narrow allowed commands, not add one: %s is not within any of %s",
				rule, allowString(base.Commands.Allow))
		}
	}
	if r.Commands.Shell && !base.Commands.Shell {
		widen("commands.shell", "a request may not allow a shell: the policy in force does not")
	}
	if r.Commands.Timeout > base.Commands.Timeout {
		widen("commands.timeout", "a request may only shorten the command timeout (in force %s, requested %s)",
			time.Duration(base.Commands.Timeout), time.Duration(r.Commands.Timeout))
	}
	if r.Commands.Network && !base.Commands.Network {
		widen("commands.network", "a request may not let commands reach the network: the policy in force does not")
	}
	if !maps.Equal(r.Commands.Env, base.Commands.Env) {
		widen("commands.env", "a request may not set the environment of commands: only the operator's policy does")
	}
	if !slices.Equal(r.Commands.Writable, base.Commands.Writable) {
		widen("commands.writable", "a request may not change which directories commands may write")
	}
	lim, bl := r.Commands.Limits, base.Commands.Limits
	def := vouch.DefaultPolicy()
	for _, l := range []struct {
		key            string
		now, base, def int64
	}{
		{"commands.limits.cpu", int64(lim.CPU), int64(bl.CPU), int64(r.Commands.Timeout)},
		{"commands.limits.memoryBytes", lim.MemoryBytes, bl.MemoryBytes, def.Commands.Limits.MemoryBytes},
		{"commands.limits.fileBytes", lim.FileBytes, bl.FileBytes, def.Commands.Limits.FileBytes},
		{"commands.limits.processes", int64(lim.Processes), int64(bl.Processes), int64(def.Commands.Limits.Processes)},
		{"timeout", int64(r.Timeout), int64(base.Timeout), 0},
		{"limits.fileBytes", r.Limits.FileBytes, base.Limits.FileBytes, def.Limits.FileBytes},
		{"limits.parseBytes", r.Limits.ParseBytes, base.Limits.ParseBytes, def.Limits.ParseBytes},
		{"limits.regexBytes", r.Limits.RegexBytes, base.Limits.RegexBytes, def.Limits.RegexBytes},
	} {
		// Zero means the default (for timeout: no limit).
		now, was := cmp.Or(l.now, l.def), cmp.Or(l.base, l.def)
		if was != 0 && (now == 0 || now > was) {
			show := func(v int64) any { return v }
			if strings.HasSuffix(l.key, "cpu") || l.key == "timeout" {
				show = func(v int64) any { return time.Duration(v) }
			}
			widen(l.key, "a request may only lower a limit (in force %v, requested %v)", show(was), show(now))
		}
	}

	if missing := dropped(base.ErrorWords, r.ErrorWords); len(missing) > 0 {
		widen("errorWords", "a request may only add error words, not drop %s", quoteList(missing))
	}

	for _, tool := range sortedKeys(base.PluginSchemas) {
		s, ok := r.PluginSchemas[tool]
		if !ok {
			widen("pluginSchemas."+tool, "a request may not remove the schema the policy registers for %q", tool)
		} else if !sameJSON(base.PluginSchemas[tool], s) {
			widen("pluginSchemas."+tool, "a request may not replace the schema the policy registers for %q; it may add schemas for tools that have none", tool)
		}
	}

	// An advisory plugin's failures only warn: marking one advisory
	// loosens the gate, unmarking one tightens it.
	if added := dropped(r.AdvisoryPlugins, base.AdvisoryPlugins); len(added) > 0 {
		widen("advisoryPlugins", "a request may only remove advisory plugins, not add %s: their failures would no longer send the work back", quoteList(added))
	}

	infer := []struct {
		key       string
		base, now bool
	}{
		{"docComments", base.Infer.DocComments, r.Infer.DocComments},
		{"counts", base.Infer.Counts, r.Infer.Counts},
		{"created", base.Infer.Created, r.Infer.Created},
	}
	for _, f := range infer {
		if f.base && !f.now {
			widen("infer."+f.key, "a request may not switch off inferred criteria")
		}
	}

	if missing := dropped(base.RequiredTopics, r.RequiredTopics); len(missing) > 0 {
		widen("requiredTopics", "a request may only add required topics, not drop %s", quoteList(missing))
	}
	return errs
}

// coveredBy reports whether some rule of allow covers rule (see
// [vouch.CommandRule.Covers]).
func coveredBy(rule vouch.CommandRule, allow []vouch.CommandRule) bool {
	for _, a := range allow {
		if a.Covers(rule) {
			return true
		}
	}
	return false
}

// dropped returns the words of base missing from now.
func dropped(base, now []string) []string {
	var out []string
	for _, w := range base {
		if !slices.Contains(now, w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// sameJSON reports whether two JSON texts are the same value, member order
// and spacing aside.
func sameJSON(a, b []byte) bool {
	ca, cb := jsontext.Value(bytes.Clone(a)), jsontext.Value(bytes.Clone(b))
	if ca.Canonicalize() != nil || cb.Canonicalize() != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca, cb)
}

func allowString(allow []vouch.CommandRule) string {
	if len(allow) == 0 {
		return "[] (the policy in force allows no command)"
	}
	parts := make([]string, len(allow))
	for i, a := range allow {
		parts[i] = a.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func quoteList(ws []string) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = fmt.Sprintf("%q", w)
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
