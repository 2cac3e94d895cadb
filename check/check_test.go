package check_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

type nopAnalyzer struct{}

func (nopAnalyzer) Analyze(context.Context, *vouch.Subject, *vouch.Findings) error { return nil }

func newNop() vouch.Analyzer { return nopAnalyzer{} }

func TestRegisterAnalyzerKinds(t *testing.T) {
	for _, tt := range []struct {
		name  string
		kinds []vouch.Kind
		panic string
	}{
		{"test.none", nil, "no kinds"},
		{"test.empty", []vouch.Kind{}, "no kinds"},
		{"test.unknown", []vouch.Kind{vouch.KindSubtask, "review"}, `unknown kind "review"`},
		{"test.twice", []vouch.Kind{vouch.KindAnswer, vouch.KindAnswer}, "kind answer twice"},
	} {
		got := func() (msg string) {
			defer func() {
				if p := recover(); p != nil {
					msg = p.(string)
				}
			}()
			check.RegisterAnalyzer(check.AnalyzerInfo{Name: tt.name, Level: vouch.LevelClaims, Kinds: tt.kinds, New: newNop})
			check.Unregister(tt.name)
			return ""
		}()
		if !strings.Contains(got, tt.panic) {
			t.Errorf("%s: panic %q, want one containing %q", tt.name, got, tt.panic)
		}
	}
}

func TestAnalyzersFor(t *testing.T) {
	check.RegisterAnalyzer(check.AnalyzerInfo{Name: "test.b", Level: vouch.LevelGrounding,
		Kinds: []vouch.Kind{vouch.KindAnswer, vouch.KindSynthesis}, New: newNop})
	defer check.Unregister("test.b")
	check.RegisterAnalyzer(check.AnalyzerInfo{Name: "test.a", Level: vouch.LevelClaims, Kinds: check.EveryKind(), New: newNop})
	defer check.Unregister("test.a")

	var b check.AnalyzerInfo
	for _, a := range check.Analyzers() {
		if a.Name == "test.b" {
			b = a
		}
	}
	// Kinds are kept in the order of vouch.Kinds, and each caller gets its
	// own copy.
	if want := []vouch.Kind{vouch.KindSynthesis, vouch.KindAnswer}; !slices.Equal(b.Kinds, want) {
		t.Errorf("kinds %v, want %v", b.Kinds, want)
	}
	b.Kinds[0] = vouch.KindModeration
	if got := check.AnalyzersFor(vouch.KindModeration); len(got) != 1 || got[0].Name != "test.a" {
		t.Errorf("a caller changed the registry: %+v", got)
	}
	if !b.Serves(vouch.KindModeration) || b.ServesEveryKind() {
		t.Error("Serves reads the info's own Kinds")
	}

	names := func(as []check.AnalyzerInfo) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.Name)
		}
		return out
	}
	for k, want := range map[vouch.Kind][]string{
		vouch.KindSubtask:   {"test.a"},
		vouch.KindSynthesis: {"test.a", "test.b"}, // claims before grounding
		vouch.KindAnswer:    {"test.a", "test.b"},
	} {
		if got := names(check.AnalyzersFor(k)); !slices.Equal(got, want) {
			t.Errorf("AnalyzersFor(%s) = %v, want %v", k, got, want)
		}
	}
	for _, a := range check.Analyzers() {
		if a.Name == "test.a" && !a.ServesEveryKind() {
			t.Errorf("test.a serves %v", a.Kinds)
		}
	}
	every := check.EveryKind()
	every[0] = "changed"
	if vouch.Kinds[0] == "changed" {
		t.Error("EveryKind returned vouch.Kinds itself")
	}
}
