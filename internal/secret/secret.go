// Package secret finds the credentials in vouch's own environment and
// scrubs them from text, so that no report shows one: a command vouch ran
// again in the workspace, or anything else the agent wrote, cannot carry a
// key into evidence.
package secret

import (
	"os"
	"reflect"
	"slices"
	"strings"
)

// secretName matches the names of environment variables that hold
// credentials.
func secretName(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "DSN", "PRIVATE", "COOKIE", "SESSION"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// hasUserinfo reports whether v holds a URL with a password in it
// (postgres://user:pass@host, https://token@host).
func hasUserinfo(v string) bool {
	i := strings.Index(v, "://")
	if i < 0 {
		return false
	}
	rest := v[i+3:]
	at := strings.IndexByte(rest, '@')
	return at > 0 && !strings.ContainsAny(rest[:at], "/?#")
}

// Secrets returns the values of the variables of this process's
// environment whose names say they hold credentials (…_API_KEY, …_TOKEN,
// …_SECRET, …_PASSWORD, a DSN) or that are URLs with credentials in them
// (DATABASE_URL=postgres://user:pass@host), at least 8 bytes long, longest
// first: what
// a report must never show. A run cannot see vouch's environment, but it
// can read what the user running vouch can read.
func Secrets() []Secret {
	var out []Secret
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if len(v) >= 8 && (secretName(k) || hasUserinfo(v)) {
			out = append(out, Secret{Name: k, Value: v})
		}
	}
	// Longest first, so that a secret that contains another is replaced
	// whole.
	slices.SortStableFunc(out, func(a, b Secret) int { return len(b.Value) - len(a.Value) })
	return out
}

// Secret is one credential of vouch's environment.
type Secret struct {
	Name, Value string
}

// Redact replaces every secret's value in s by "[redacted NAME]".
func Redact(s string, secrets []Secret) string {
	for _, sec := range secrets {
		if strings.Contains(s, sec.Value) {
			s = strings.ReplaceAll(s, sec.Value, "[redacted "+sec.Name+"]")
		}
	}
	return s
}

// Scrub replaces, in place, every secret in every string that v (a pointer)
// reaches: struct fields, slices, arrays, maps and interfaces. It reports
// whether it replaced anything.
func Scrub(v any, secrets []Secret) bool {
	if len(secrets) == 0 {
		return false
	}
	return scrub(reflect.ValueOf(v), secrets)
}

func scrub(v reflect.Value, secrets []Secret) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return false
		}
		if v.Kind() == reflect.Interface {
			// The value inside an interface cannot be set: scrub a copy
			// and put it back.
			e := v.Elem()
			if e.Kind() == reflect.String {
				if r := Redact(e.String(), secrets); r != e.String() && v.CanSet() {
					v.Set(reflect.ValueOf(r))
					return true
				}
				return false
			}
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			if scrub(c, secrets) && v.CanSet() {
				v.Set(c)
				return true
			}
			return false
		}
		return scrub(v.Elem(), secrets)
	case reflect.String:
		if r := Redact(v.String(), secrets); r != v.String() && v.CanSet() {
			v.SetString(r)
			return true
		}
	case reflect.Struct:
		changed := false
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				changed = scrub(f, secrets) || changed
			}
		}
		return changed
	case reflect.Slice, reflect.Array:
		changed := false
		for i := 0; i < v.Len(); i++ {
			changed = scrub(v.Index(i), secrets) || changed
		}
		return changed
	case reflect.Map:
		changed := false
		iter := v.MapRange()
		type kv struct{ k, v reflect.Value }
		var set []kv
		for iter.Next() {
			c := reflect.New(iter.Value().Type()).Elem()
			c.Set(iter.Value())
			if scrub(c, secrets) {
				set = append(set, kv{iter.Key(), c})
			}
		}
		for _, e := range set {
			v.SetMapIndex(e.k, e.v)
			changed = true
		}
		return changed
	}
	return false
}
