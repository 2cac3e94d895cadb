package agentlog

import "testing"

func TestTextExitCode(t *testing.T) {
	for _, tt := range []struct {
		head string
		code int
		ok   bool
	}{
		{"Exit code 1\nFAIL", 1, true},
		{"Error: Exit code 2", 2, true},
		{"Exit code: 0\nWall time: 0.2 seconds\nOutput:\nok", 0, true},
		{"Exit code: 127", 127, true},
		{"Exit code:1", 0, false},
		{"Exit codes 1", 0, false},
		{"Exit code ", 0, false},
		{"<returncode>3</returncode>\n<output>x</output>", 3, true},
		{"<exception>boom</exception>\n<returncode>-9</returncode>", -9, true},
		{"exit code 1", 0, false},
	} {
		code, ok := TextExitCode([]byte(tt.head))
		if code != tt.code || ok != tt.ok {
			t.Errorf("TextExitCode(%q) = %d, %v; want %d, %v", tt.head, code, ok, tt.code, tt.ok)
		}
	}
}
