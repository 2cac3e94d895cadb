package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

// TestAdvisoryPluginsAndCostShare checks the keys advisoryPlugins and
// judge.maxCostShare: their defaults, that a file sets them (a list
// replacing the one below), and that Validate refuses bad values by path.
func TestAdvisoryPluginsAndCostShare(t *testing.T) {
	def := vouch.DefaultPolicy()
	if def.AdvisoryPlugins != nil || def.Judge.MaxCostShare != 0.3 {
		t.Errorf("defaults: advisoryPlugins %q, judge.maxCostShare %v; want none and 0.3", def.AdvisoryPlugins, def.Judge.MaxCostShare)
	}
	for _, w := range []string{"crash", "crashed", "exception", "traceback", "timed out", "panic", "segfault"} {
		if !slices.Contains(def.ErrorWords, w) {
			t.Errorf("default errorWords lack %q", w)
		}
	}
	apply := func(doc string, p *vouch.Policy) error {
		l, err := Parse("p.yaml", []byte(doc))
		if err != nil {
			return err
		}
		if err := l.Apply(p); err != nil {
			return err
		}
		return p.Validate()
	}
	p := vouch.DefaultPolicy()
	if err := apply("advisoryPlugins: [web:lookup, search]\njudge: {maxCostShare: 0.5}\n", &p); err != nil {
		t.Fatal(err)
	}
	if err := apply("advisoryPlugins: [search]\n", &p); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.AdvisoryPlugins, []string{"search"}) || p.Judge.MaxCostShare != 0.5 {
		t.Errorf("layered: advisoryPlugins %q, judge.maxCostShare %v; want [search] and 0.5", p.AdvisoryPlugins, p.Judge.MaxCostShare)
	}
	for _, tt := range []struct{ doc, path string }{
		{"judge: {maxCostShare: -0.1}\n", "judge.maxCostShare"},
		{"advisoryPlugins: [search, '']\n", "advisoryPlugins[1]"},
	} {
		p := vouch.DefaultPolicy()
		err := apply(tt.doc, &p)
		if err == nil || !strings.Contains(err.Error(), tt.path) {
			t.Errorf("%q: error %v, want one at %s", tt.doc, err, tt.path)
		}
	}
}
