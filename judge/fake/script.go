package fake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"time"
	"unicode/utf8"
)

// LoadScript reads rules from JSON: a list of objects whose keys are the
// fields of [Rule] and [Reply] in camelCase ("provider", "contains",
// "times", "reply": {"arguments", "status", "retryAfter", "latency",
// "noToolCall", "inputTokens", ...}). Arguments are any JSON value, sent
// as they are written; latency is a Go duration string such as "200ms";
// retryAfter is a string or a number of seconds. An unknown key, a value
// of the wrong type, a provider other than "openai" or "anthropic", a
// pattern that does not compile or a negative count is an error that
// names the rule's index and the field.
//
//	[
//	  {"provider": "openai", "times": 2, "reply": {"status": 503}},
//	  {"contains": "release notes", "reply": {"arguments": {"score": 4}, "latency": "200ms"}}
//	]
func LoadScript(r io.Reader) ([]Rule, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("fake: reading the script: %w", err)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '[' {
		return nil, errors.New("fake: the script must be a JSON list of rules")
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("fake: the script is not valid JSON: %v", err)
	}
	rules := make([]Rule, 0, len(raws))
	for i, raw := range raws {
		rule, err := decodeRule(raw)
		if err != nil {
			return nil, fmt.Errorf("fake: script: rule %d: %w", i, err)
		}
		rules = append(rules, rule)
	}
	return rules, nil
}

// decodeRule decodes one rule of a script.
func decodeRule(raw json.RawMessage) (Rule, error) {
	var r Rule
	fields, err := object(raw, "the rule")
	if err != nil {
		return r, err
	}
	for _, k := range sortedKeys(fields) {
		v := fields[k]
		switch k {
		case "provider":
			err = decode(v, &r.Provider, k, "a string")
			if err == nil && r.Provider != "" && r.Provider != OpenAI && r.Provider != Anthropic {
				err = fmt.Errorf("%s: %q is not a provider (want %q or %q)", k, r.Provider, OpenAI, Anthropic)
			}
		case "model":
			err = decode(v, &r.Model, k, "a string")
		case "contains":
			err = decode(v, &r.Contains, k, "a string")
		case "pattern":
			err = decode(v, &r.Pattern, k, "a string")
			if err == nil && r.Pattern != "" {
				if _, cerr := regexp.Compile(r.Pattern); cerr != nil {
					err = fmt.Errorf("%s: %v", k, cerr)
				}
			}
		case "times":
			err = count(v, &r.Times, k)
		case "reply":
			err = decodeReply(v, &r.Reply)
		default:
			err = fmt.Errorf("%s: unknown field", k)
		}
		if err != nil {
			return r, err
		}
	}
	return r, nil
}

// decodeReply decodes a rule's reply.
func decodeReply(raw json.RawMessage, rep *Reply) error {
	fields, err := object(raw, "reply")
	if err != nil {
		return err
	}
	for _, k := range sortedKeys(fields) {
		v := fields[k]
		path := "reply." + k
		switch k {
		case "arguments":
			if t := bytes.TrimSpace(v); string(t) != "null" {
				rep.Arguments = slices.Clone(t)
			}
		case "text":
			err = decode(v, &rep.Text, path, "a string")
		case "stop":
			err = decode(v, &rep.Stop, path, "a string")
		case "status":
			err = decode(v, &rep.Status, path, "an integer")
			if err == nil && rep.Status != 0 && (rep.Status < 200 || rep.Status > 599) {
				err = fmt.Errorf("%s: %d is not a status (want 200 to 599)", path, rep.Status)
			}
		case "errorType":
			err = decode(v, &rep.ErrorType, path, "a string")
		case "errorMessage":
			err = decode(v, &rep.ErrorMessage, path, "a string")
		case "retryAfter":
			var n json.Number
			if decode(v, &n, path, "") == nil && n != "" {
				rep.RetryAfter = n.String()
			} else {
				err = decode(v, &rep.RetryAfter, path, "a string or a number of seconds")
			}
		case "headers":
			err = decode(v, &rep.Headers, path, "an object of strings")
		case "body":
			err = decode(v, &rep.Body, path, "a string")
		case "latency":
			var s string
			if err = decode(v, &s, path, `a duration string such as "200ms"`); err == nil && s != "" {
				rep.Latency, err = time.ParseDuration(s)
				if err != nil {
					err = fmt.Errorf("%s: %q is not a duration (want one such as \"200ms\" or \"2s\")", path, s)
				} else if rep.Latency < 0 {
					err = fmt.Errorf("%s: %q is negative", path, s)
				}
			}
		case "malformed":
			err = decode(v, &rep.Malformed, path, "true or false")
		case "noToolCall":
			err = decode(v, &rep.NoToolCall, path, "true or false")
		case "refusal":
			err = decode(v, &rep.Refusal, path, "a string")
		case "inputTokens":
			err = count(v, &rep.InputTokens, path)
		case "outputTokens":
			err = count(v, &rep.OutputTokens, path)
		case "hang":
			err = decode(v, &rep.Hang, path, "true or false")
		default:
			err = fmt.Errorf("%s: unknown field", path)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// object decodes raw as a JSON object's members.
func object(raw json.RawMessage, what string) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &fields) != nil {
		return nil, fmt.Errorf("%s must be an object, not %s", what, show(raw))
	}
	return fields, nil
}

// decode decodes raw into dst, or says that field wants something else.
func decode(raw json.RawMessage, dst any, field, want string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("%s: want %s, not %s", field, want, show(raw))
	}
	return nil
}

// count decodes a count: an integer, 0 or more.
func count(raw json.RawMessage, dst *int, field string) error {
	if err := decode(raw, dst, field, "an integer"); err != nil {
		return err
	}
	if *dst < 0 {
		return fmt.Errorf("%s: %d is negative", field, *dst)
	}
	return nil
}

// show returns a JSON value for an error message, shortened.
func show(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		cut := 40
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	if s == "" {
		return "nothing"
	}
	return s
}

// sortedKeys returns m's keys in order, so that the first error reported
// does not depend on map order.
func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
