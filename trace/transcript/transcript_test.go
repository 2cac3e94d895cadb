package transcript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/internal/sharedtest"
)

func TestDetect(t *testing.T) {
	files := []struct {
		path string
		want Format
	}{
		{"testdata/claude-session.jsonl", ClaudeCode},
		{"../openai/testdata/chat-request-response.json", OpenAIChat},
		{"../openai/testdata/chat-legacy.jsonl", OpenAIChat},
		{"../openai/testdata/responses-items.json", OpenAIResponses},
		{"../openai/testdata/responses-object.json", OpenAIResponses},
		{"../otelgenai/testdata/spans.json", OTelGenAI},
		{"../otelgenai/testdata/events.json", OTelGenAI},
		{"../otelgenai/testdata/collector.jsonl", OTelGenAI},
	}
	for _, tt := range files {
		data, err := os.ReadFile(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := Detect(data); got != tt.want || err != nil {
			t.Errorf("%s: %q, %v; want %q", tt.path, got, err, tt.want)
		}
		// A prefix cut anywhere past the first few members will do.
		if got, err := Detect(data[:min(len(data), 300)]); got != tt.want || err != nil {
			t.Errorf("%s, first 300 bytes: %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		log  string
		want Format
	}{
		{`{"type":"assistant","message":{"role":"assistant","content":[]},"session_id":"s"}`, ClaudeCode},
		{`[{"role":"system","content":"x"},{"role":"assistant","content":"THOUGHT: look\n` + "```mswea_bash_command\\nls\\n```" + `"}]`, MiniSWE},
		{`[{"role":"user","content":"<returncode>0</returncode>"}]`, MiniSWE},
		{`{"info":{"mini_version":"1.0"},"messages":[],"trajectory_format":"mini-swe-agent-1"}`, MiniSWE},
		{`[{"role":"user","content":"hi"}]`, OpenAIChat},
		{`{"resourceSpans":[`, OTelGenAI},
	} {
		if got, err := Detect([]byte(tt.log)); got != tt.want || err != nil {
			t.Errorf("Detect(%.60s): %q, %v; want %q", tt.log, got, err, tt.want)
		}
	}
	for _, p := range sharedtest.Optional(t, "agent-transcripts/mini-swe-agent/local.traj.json") {
		data, _ := os.ReadFile(p)
		if got, err := Detect(data); got != MiniSWE || err != nil {
			t.Errorf("%s: %q, %v", p, got, err)
		}
	}
}

func TestDetectUnknown(t *testing.T) {
	for _, tt := range []struct {
		log  string
		want string
	}{
		{"", "empty"},
		{"hello world", `not JSON (it starts "hello world")`},
		{`{"a": 1, "b": {"c": 2}}`, "members a, b"},
		{`[1, 2, 3]`, "without objects"},
		{`{"a" 1}`, "malformed JSON"},
	} {
		_, err := Detect([]byte(tt.log))
		if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Detect(%q): %v, want ErrUnknown saying %q", tt.log, err, tt.want)
		}
	}
}

func TestRead(t *testing.T) {
	f, err := os.Open("../openai/testdata/responses-object.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, format, err := Read(f)
	if err != nil || format != OpenAIResponses || tr.Output.Summary != "go.mod names Go 1.26.0." {
		t.Fatalf("Read: %v %q %+v", err, format, tr)
	}
	// A log longer than the detection buffer is read whole.
	big := `{"role":"user","content":"` + strings.Repeat("a", DetectBytes) + `"}` + "\n" + `{"role":"assistant","content":"done"}` + "\n"
	tr, format, err = Read(strings.NewReader(big))
	if err != nil || format != OpenAIChat || tr.Output.Summary != "done" || len(tr.Goal) != DetectBytes {
		t.Fatalf("a long log: %v %q", err, format)
	}
	if _, _, err := Read(strings.NewReader("garbage")); !errors.Is(err, ErrUnknown) {
		t.Errorf("garbage: %v", err)
	}
	for _, f := range Formats() {
		if Reader(f) == nil {
			t.Errorf("no reader for %s", f)
		}
	}
	if Reader("nope") != nil {
		t.Error("a reader for an unknown format")
	}
}

func TestLimited(t *testing.T) {
	for _, tt := range []struct {
		data string
		n    int64
		err  error
	}{
		{"abcdef", 6, nil},
		{"abcdef", 10, nil},
		{"abcdefg", 6, ErrTooLarge},
	} {
		got, err := io.ReadAll(&limited{r: strings.NewReader(tt.data), n: tt.n})
		if !errors.Is(err, tt.err) || (err == nil && !bytes.Equal(got, []byte(tt.data))) {
			t.Errorf("%q over %d: %q, %v; want %v", tt.data, tt.n, got, err, tt.err)
		}
	}
}

// FuzzDetect runs as a test of its seeds; this package's tests import the
// engine, whose size makes fuzzing here slow: trace/internal/session
// fuzzes the scanner Detect is built on.
func FuzzDetect(f *testing.F) {
	for _, p := range []string{"testdata/claude-session.jsonl", "../openai/testdata/responses-items.json", "../otelgenai/testdata/events.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 2000)])
	}
	f.Add([]byte(`]]}}{"a":[}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		format, err := Detect(data)
		if (err == nil) == (format == "") {
			t.Fatalf("Detect: %q, %v", format, err)
		}
		if err != nil && !errors.Is(err, ErrUnknown) {
			t.Fatalf("an error that is not ErrUnknown: %v", err)
		}
		if err == nil {
			// Reading may fail, but never panics.
			_, _ = Reader(format)(bytes.NewReader(data))
		}
	})
}
