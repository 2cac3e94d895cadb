package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
)

type testConfig struct {
	Addr    string            `json:"addr"`
	Timeout vouch.Duration    `json:"timeout"`
	Roots   map[string]string `json:"roots"`
}

func TestDecodeFile(t *testing.T) {
	c := testConfig{Addr: "default", Timeout: vouch.Duration(time.Second)}
	if err := DecodeFile("c.yaml", []byte("timeout: 90s\nroots: {a: /srv/a}\n"), &c); err != nil {
		t.Fatal(err)
	}
	if c.Addr != "default" || c.Timeout != vouch.Duration(90*time.Second) || c.Roots["a"] != "/srv/a" {
		t.Errorf("got %+v", c)
	}
	for _, tc := range []struct{ doc, want string }{
		{"adr: x\n", `c.yaml:1:1: adr: unknown field (did you mean "addr"?)`},
		{"timeout: soon\n", `invalid duration "soon"`},
		{"addr: [1]\n", "addr: got list, want string"},
		{"addr: a\naddr: b\n", "duplicate"},
		{"- 1\n", "want a mapping"},
	} {
		before := c
		err := DecodeFile("c.yaml", []byte(tc.doc), &c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error containing %q", tc.doc, err, tc.want)
		}
		if c.Addr != before.Addr || c.Timeout != before.Timeout {
			t.Errorf("%q: a bad file changed the defaults: %+v", tc.doc, c)
		}
	}
	if err := DecodeFile("x", nil, c); err == nil {
		t.Error("a non-pointer was accepted")
	}
}
