package secret

import (
	"testing"
)

func TestRedact(t *testing.T) {
	t.Setenv("SOME_API_KEY", "abcdefgh12345678")
	t.Setenv("SOME_API_KEY_LONG", "abcdefgh12345678-and-more")
	t.Setenv("SHORT_TOKEN", "abc")
	t.Setenv("HARMLESS", "abcdefgh12345678x")
	t.Setenv("DATABASE_URL", "postgres://app:hunter22@db/app")
	t.Setenv("HOMEPAGE_URL", "https://example.com/a@b")
	secs := Secrets()
	got := Redact("key=abcdefgh12345678 long=abcdefgh12345678-and-more short=abc", secs)
	if got != "key=[redacted SOME_API_KEY] long=[redacted SOME_API_KEY_LONG] short=abc" {
		t.Errorf("Redact = %q", got)
	}
	if got := Redact("dsn postgres://app:hunter22@db/app; home https://example.com/a@b", secs); got != "dsn [redacted DATABASE_URL]; home https://example.com/a@b" {
		t.Errorf("Redact = %q", got)
	}
}

func TestScrub(t *testing.T) {
	secs := []Secret{{"K", "s3cr3t-value"}}
	type inner struct {
		Text string
		Any  map[string]any
	}
	v := struct {
		A    string
		B    []string
		C    *inner
		D    map[string]any
		keep string // unexported: left alone
	}{
		A: "a s3cr3t-value", B: []string{"x", "s3cr3t-value"},
		C: &inner{Text: "t s3cr3t-value", Any: map[string]any{"n": 1, "s": "s3cr3t-value", "l": []any{"s3cr3t-value"}}},
		D: map[string]any{"deep": map[string]any{"x": "s3cr3t-value"}},
	}
	if !Scrub(&v, secs) {
		t.Fatal("Scrub reported no change")
	}
	want := "[redacted K]"
	if v.A != "a "+want || v.B[1] != want || v.C.Text != "t "+want || v.C.Any["s"] != want ||
		v.C.Any["l"].([]any)[0] != want || v.D["deep"].(map[string]any)["x"] != want || v.C.Any["n"] != 1 {
		t.Errorf("Scrub left a secret: %+v %+v", v, *v.C)
	}
	if Scrub(&v, secs) {
		t.Error("a second Scrub changed something")
	}
}
