// Package policy reads, layers, checks and prints vouch policies.
//
// A policy file is YAML (JSON is YAML too, and is read as JSON) with the
// camelCase keys of [vouch.Policy]:
//
//	passAt: 0.8
//	commands:
//	  allow: [[go, test], [go, vet]]
//	  timeout: 2m
//	weights:
//	  subtask: {claims: 0.5, criteria: 0.3}
//
// # Layers
//
// The policy in force is built in layers, later wins: [vouch.DefaultPolicy],
// then each policy file in the order given (a team file, then a mission
// file), then the request's task.policy. A layer changes only what it
// names:
//
//   - a key left out keeps the value of the layers below;
//   - a mapping merges key by key: weights: {subtask: {claims: 0.5}} changes
//     one weight and keeps the others, and a new pluginSchemas tool (or
//     tools entry) adds beside the others;
//   - a list replaces the list below as a whole (commands.allow,
//     errorWords, advisoryPlugins, requiredTopics, judge.models); write []
//     to empty it;
//   - null is refused: leave the key out to keep a value.
//
// [Load] layers files, [Layer.Apply] applies one parsed layer, [Show] prints
// the merged policy as YAML that loads back to the same policy, and [Check]
// reports every problem of a set of files.
//
// # Requests tighten, never widen
//
// A request's task.policy ([ApplyRequest]) may make the gate stricter but
// never widen what runs or what passes: it may narrow the command allow-list
// but not add a command, switch the shell off but not on, shorten the
// command timeout, raise passAt, failBelow and reviewBelow, lower
// maxRetries and maxRefuted, make onUnverified stricter (accept, follow_up,
// escalate, fail), shrink claims.sizeTolerance, add error
// words, required topics and schemas for tools that have none, and remove
// tools from advisoryPlugins (but not add one); it may not
// switch off strict must-pass claims or inferred criteria, and may not set
// the judge at all (its cost and credentials are the operator's), nor the
// memory (shared by every interaction). Weights
// are free: they change emphasis, not what runs. A widening is a
// [vouch.ErrWiden] error naming the key.
//
// A policy is never read from the workspace under verification: the agent
// could have written it.
//
// # Errors
//
// Problems are [*vouch.Error] values (several at once as [vouch.Errors])
// naming the file, line, column and dotted path of the key at fault:
// unknown keys ([vouch.ErrUnknownField]), values of the wrong type
// ([vouch.ErrType]), malformed YAML ([vouch.ErrSyntax]), values out of range
// or inconsistent ([vouch.ErrInvalid]). Every problem is reported, not just
// the first.
package policy

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/go-json-experiment/json"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/jsonerr"
	"github.com/vouchgate/vouch/internal/strict"
)

// Layer is one parsed policy document, ready to be applied on top of a
// policy. A Layer is immutable; Apply may be called concurrently.
type Layer struct {
	name string
	// data is the document as a JSON object in its canonical form, aliases
	// resolved and merge keys applied; nil for an empty document.
	data []byte
	// doc locates each value the document sets.
	doc *strict.Doc
}

// Name returns the name the layer was parsed under, usually its file name.
func (l *Layer) Name() string { return l.name }

// Parse parses one policy document, YAML or JSON, named name in errors.
// It reports every unknown key (with the key meant, when one is close),
// value of the wrong type and bad duration with its file, line, column and
// path, as a [*vouch.Error] or, for several problems, [vouch.Errors]. An
// empty document gives an empty layer. Anchors and aliases are resolved; a
// document that expands to more than 10000 values or 1 MiB of JSON is
// refused ([vouch.ErrTooLarge]).
//
// Parse does not validate values against each other (failBelow above
// passAt, weights of unknown kinds): that is done on the layered result by
// [Load] and [ApplyRequest].
func Parse(name string, data []byte) (*Layer, error) {
	doc, err := strict.Parse(data, readOptions(false))
	if err != nil {
		return nil, withFile(vouch.ErrorList(err), name)
	}
	// The trial decode into a throw-away policy makes the layer known to
	// apply cleanly to any policy.
	var trial vouch.Policy
	return newLayer(name, doc, &trial)
}

// newLayer checks a read document and decodes it into p, which it leaves
// unchanged on error.
func newLayer(name string, doc *strict.Doc, p *vouch.Policy) (*Layer, error) {
	l := &Layer{name: name}
	switch k := doc.Kind(); k {
	case 0, 'n':
		return l, nil
	case '{':
	default:
		_, at, _ := doc.Lookup("")
		return nil, &vouch.Error{Code: vouch.ErrType, File: name, Line: at.Line, Column: at.Column,
			Message: "got " + kindWord(k) + ", want a mapping of policy keys"}
	}
	data := schema().Decode(doc, p)
	if errs := doc.Errors(); errs != nil {
		return nil, withFile(errs, name)
	}
	l.data, l.doc = data, doc
	return l, nil
}

// withFile names the file of errors and returns nil, the only error, or the
// list.
func withFile(errs []*vouch.Error, name string) error {
	for _, e := range errs {
		e.File = name
	}
	return errorOf(errs)
}

// Apply applies the layer on top of p: the keys it sets replace or merge
// into p's values (see the package doc), the others keep theirs. Empty lists
// and maps in the result are nil. On error p is left unchanged. Apply does
// not validate the result.
func (l *Layer) Apply(p *vouch.Policy) error {
	if p == nil {
		return &vouch.Error{Code: vouch.ErrInternal, Message: "policy: Apply to a nil policy"}
	}
	c := clonePolicy(*p)
	if l != nil && l.data != nil {
		if err := l.decode(&c); err != nil {
			return err
		}
	}
	normalize(&c)
	*p = c
	return nil
}

// decode unmarshals the layer into p, which must hold no memory shared with
// a policy the caller still uses: the decoder reuses list storage.
func (l *Layer) decode(p *vouch.Policy) error {
	err := json.Unmarshal(l.data, p, json.RejectUnknownMembers(true))
	if err == nil {
		return nil
	}
	e := *jsonerr.Convert(l.data, err)
	e.File = l.name
	e.Line, e.Column = 0, 0
	// The position of the value, or of its closest ancestor the layer sets.
	for path := e.Path; ; path = parentPath(path) {
		if _, at, ok := l.doc.Lookup(path); ok {
			e.Line, e.Column = at.Line, at.Column
			break
		}
		if path == "" {
			break
		}
	}
	return &e
}

// sets reports whether the layer sets the value at path, and where its key
// is.
func (l *Layer) sets(path string) (strict.Pos, bool) {
	if l == nil || l.doc == nil {
		return strict.Pos{}, false
	}
	key, _, ok := l.doc.Lookup(path)
	return key, ok
}

// parentPath drops the last key or index of a dotted path.
func parentPath(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		switch path[i] {
		case '.':
			return path[:i]
		case '[':
			if i > 0 {
				return path[:i]
			}
			return ""
		}
	}
	return ""
}

// Load builds the policy in force from policy files: [vouch.DefaultPolicy],
// then each file in order, later wins; then it validates the result. It
// reports every problem of every file, and names the file and line of the
// key that last set a value that fails validation. On error the policy is
// the zero Policy.
func Load(files ...string) (vouch.Policy, error) {
	var errs vouch.Errors
	var layers []*Layer
	for _, f := range files {
		l, err := ReadFile(f)
		if err != nil {
			errs = append(errs, vouch.ErrorList(err)...)
			continue
		}
		layers = append(layers, l)
	}
	if len(errs) > 0 {
		return vouch.Policy{}, errorOf(errs)
	}
	p := vouch.DefaultPolicy()
	for _, l := range layers {
		if err := l.Apply(&p); err != nil {
			errs = append(errs, vouch.ErrorList(err)...)
		}
	}
	if len(errs) == 0 {
		errs = locate(p.Validate(), layers)
	}
	if len(errs) > 0 {
		return vouch.Policy{}, errorOf(errs)
	}
	return p, nil
}

// ReadFile reads and parses the policy file name (see [Parse]). A file that
// cannot be read is a [vouch.ErrUsage] error wrapping the cause.
func ReadFile(name string) (*Layer, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, &vouch.Error{Code: vouch.ErrUsage, File: name, Message: "cannot read the policy file: " + errText(err), Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxInputBytes+1))
	if err != nil {
		return nil, &vouch.Error{Code: vouch.ErrUsage, File: name, Message: "cannot read the policy file: " + errText(err), Err: err}
	}
	return Parse(name, data)
}

// errText returns the message of err without the path an *os.PathError
// repeats.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Check reports every problem of the policy files: each file is parsed,
// applied alone onto the defaults and validated, and the files layered in
// order are validated too (a team file and a mission file can each be valid
// and clash). Problems found both ways are reported once. Check returns nil
// when the files are fine.
func Check(files ...string) []*vouch.Error {
	var out []*vouch.Error
	seen := make(map[vouch.Error]bool)
	add := func(errs []*vouch.Error) {
		for _, e := range errs {
			k := *e
			k.Err = nil
			if !seen[k] {
				seen[k] = true
				out = append(out, e)
			}
		}
	}
	var layers []*Layer
	for _, f := range files {
		l, err := ReadFile(f)
		if err != nil {
			add(vouch.ErrorList(err))
			continue
		}
		p := vouch.DefaultPolicy()
		if err := l.Apply(&p); err != nil {
			add(vouch.ErrorList(err))
			continue
		}
		add(locate(p.Validate(), []*Layer{l}))
		layers = append(layers, l)
	}
	if len(layers) > 1 {
		p := vouch.DefaultPolicy()
		for _, l := range layers {
			// Each layer applied cleanly on its own above; decoding depends
			// only on types, so it applies here too.
			if err := l.Apply(&p); err != nil {
				add(vouch.ErrorList(err))
			}
		}
		add(locate(p.Validate(), layers))
	}
	return out
}

// related lists, for a validation path, other keys whose setter may be the
// cause when no layer set the path itself.
var related = map[string][]string{
	"failBelow": {"passAt"},
}

// locate gives each validation error the file and position of the key that
// last set the value at fault (or a related or enclosing key), searching
// layers from the last.
func locate(err error, layers []*Layer) vouch.Errors {
	list := vouch.ErrorList(err)
	out := make(vouch.Errors, 0, len(list))
	for _, e := range list {
		c := *e
		if l, at, ok := setter(c.Path, layers); ok {
			c.File, c.Line, c.Column = l.name, at.Line, at.Column
		}
		out = append(out, &c)
	}
	return out
}

// setter finds the last layer that sets path, else a related path, else the
// closest enclosing path, and the position of the key that sets it.
func setter(path string, layers []*Layer) (*Layer, strict.Pos, bool) {
	find := func(p string) (*Layer, strict.Pos, bool) {
		for i := len(layers) - 1; i >= 0; i-- {
			if at, ok := layers[i].sets(p); ok {
				return layers[i], at, true
			}
		}
		return nil, strict.Pos{}, false
	}
	if l, at, ok := find(path); ok {
		return l, at, true
	}
	for _, r := range related[path] {
		if l, at, ok := find(r); ok {
			return l, at, true
		}
	}
	for p := parentPath(path); p != ""; p = parentPath(p) {
		if l, at, ok := find(p); ok {
			return l, at, true
		}
	}
	return nil, strict.Pos{}, false
}

// errorOf returns nil, the only error, or the list.
func errorOf(errs vouch.Errors) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errs
}

// clonePolicy returns a deep copy of p: no list, map or schema of the copy
// shares memory with p.
func clonePolicy(p vouch.Policy) vouch.Policy {
	c := p
	if p.Weights != nil {
		c.Weights = make(map[vouch.Kind]map[string]float64, len(p.Weights))
		for k, m := range p.Weights {
			c.Weights[k] = maps.Clone(m)
		}
	}
	if p.Commands.Allow != nil {
		c.Commands.Allow = make([]vouch.CommandRule, len(p.Commands.Allow))
		for i, r := range p.Commands.Allow {
			c.Commands.Allow[i] = vouch.CommandRule{Run: slices.Clone(r.Run), Flags: slices.Clone(r.Flags), Args: r.Args}
		}
	}
	c.Commands.Env = maps.Clone(p.Commands.Env)
	c.Commands.Writable = slices.Clone(p.Commands.Writable)
	c.ErrorWords = slices.Clone(p.ErrorWords)
	if p.PluginSchemas != nil {
		c.PluginSchemas = maps.Clone(p.PluginSchemas)
		for k, v := range c.PluginSchemas {
			c.PluginSchemas[k] = bytes.Clone(v)
		}
	}
	c.AdvisoryPlugins = slices.Clone(p.AdvisoryPlugins)
	c.RequiredTopics = slices.Clone(p.RequiredTopics)
	c.Tools = maps.Clone(p.Tools)
	c.Judge.Models = slices.Clone(p.Judge.Models)
	if p.Judge.Tiers != nil {
		c.Judge.Tiers = make(map[string][]string, len(p.Judge.Tiers))
		for t, ms := range p.Judge.Tiers {
			c.Judge.Tiers[t] = slices.Clone(ms)
		}
	}
	c.Judge.Cascade = maps.Clone(p.Judge.Cascade)
	c.Judge.Prices = maps.Clone(p.Judge.Prices)
	c.Judge.Examples = slices.Clone(p.Judge.Examples)
	return c
}

// normalize makes empty lists and maps nil, so that a policy has one form
// whether a list was never set or set to [].
func normalize(p *vouch.Policy) {
	if len(p.Weights) == 0 {
		p.Weights = nil
	}
	if len(p.Commands.Allow) == 0 {
		p.Commands.Allow = nil
	}
	if len(p.Commands.Env) == 0 {
		p.Commands.Env = nil
	}
	if len(p.Commands.Writable) == 0 {
		p.Commands.Writable = nil
	}
	if len(p.ErrorWords) == 0 {
		p.ErrorWords = nil
	}
	if len(p.PluginSchemas) == 0 {
		p.PluginSchemas = nil
	}
	if len(p.AdvisoryPlugins) == 0 {
		p.AdvisoryPlugins = nil
	}
	if len(p.RequiredTopics) == 0 {
		p.RequiredTopics = nil
	}
	if len(p.Tools) == 0 {
		p.Tools = nil
	}
	if len(p.Judge.Models) == 0 {
		p.Judge.Models = nil
	}
	if len(p.Judge.Tiers) == 0 {
		p.Judge.Tiers = nil
	}
	if len(p.Judge.Cascade) == 0 {
		p.Judge.Cascade = nil
	}
	if len(p.Judge.Prices) == 0 {
		p.Judge.Prices = nil
	}
	if len(p.Judge.Examples) == 0 {
		p.Judge.Examples = nil
	}
}
