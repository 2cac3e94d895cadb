package trace

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/vouchgate/vouch"
)

func TestInputKeys(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fn    func(map[string]any) string
		input map[string]any
		want  string
	}{
		{"path", FilePath, map[string]any{"path": "a.go"}, "a.go"},
		{"file_path", FilePath, map[string]any{"file_path": "/w/a.go", "offset": 3.0}, "/w/a.go"},
		{"filePath", FilePath, map[string]any{"filePath": "b.go"}, "b.go"},
		{"file", FilePath, map[string]any{"file": "c.go"}, "c.go"},
		{"filename", FilePath, map[string]any{"filename": "d.go"}, "d.go"},
		{"notebook_path", FilePath, map[string]any{"notebook_path": "n.ipynb"}, "n.ipynb"},
		{"target_file", FilePath, map[string]any{"target_file": "t.go"}, "t.go"},
		{"path wins", FilePath, map[string]any{"file_path": "x", "path": "p"}, "p"},
		{"empty skipped", FilePath, map[string]any{"path": "", "file_path": "f"}, "f"},
		{"not a string", FilePath, map[string]any{"path": 3.0}, ""},
		{"nil input", FilePath, nil, ""},

		{"dir path", DirPath, map[string]any{"path": "src", "pattern": "*.go"}, "src"},
		{"dir", DirPath, map[string]any{"dir": "lib"}, "lib"},
		{"directory", DirPath, map[string]any{"directory": "pkg"}, "pkg"},
		{"no dir", DirPath, map[string]any{"pattern": "*.go"}, ""},

		{"command", Command, map[string]any{"command": "go test ./..."}, "go test ./..."},
		{"cmd", Command, map[string]any{"cmd": "ls"}, "ls"},
		{"script", Command, map[string]any{"script": "make"}, "make"},
		{"argv", Command, map[string]any{"command": []any{"go", "test", 1.0, "./..."}}, "go test ./..."},
		{"string argv", Command, map[string]any{"cmd": []string{"npm", "test"}}, "npm test"},
		{"empty list", Command, map[string]any{"command": []any{}, "cmd": "ls"}, "ls"},
		{"none", Command, map[string]any{"description": "x"}, ""},

		{"query", Query, map[string]any{"query": "how"}, "how"},
		{"pattern", Query, map[string]any{"pattern": "func main", "path": "."}, "func main"},
		{"q", Query, map[string]any{"q": "x"}, "x"},
		{"regex", Query, map[string]any{"regex": "a+"}, "a+"},
		{"search", Query, map[string]any{"search": "s"}, "s"},
		{"glob", Query, map[string]any{"glob": "*.ts"}, "*.ts"},
		{"pattern before glob", Query, map[string]any{"glob": "*.ex", "pattern": "port"}, "port"},

		{"url", URL, map[string]any{"url": "https://go.dev", "prompt": "p"}, "https://go.dev"},
		{"no url", URL, map[string]any{"prompt": "p"}, ""},
	} {
		if got := tt.fn(tt.input); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestWritten(t *testing.T) {
	for _, tt := range []struct {
		name  string
		input map[string]any
		want  []string
	}{
		{"Write", map[string]any{"file_path": "a.go", "content": "package a"}, []string{"package a"}},
		{"Edit", map[string]any{"file_path": "a.go", "old_string": "x", "new_string": "y"}, []string{"y"}},
		{"newString", map[string]any{"filePath": "a.go", "oldString": "x", "newString": "y"}, []string{"y"}},
		{"create", map[string]any{"command": "create", "path": "a.py", "file_text": "def f(): pass"}, []string{"def f(): pass"}},
		{"str_replace", map[string]any{"command": "str_replace", "path": "a.py", "old_str": "a", "new_str": "b"}, []string{"b"}},
		{"text", map[string]any{"path": "n.md", "text": "notes"}, []string{"notes"}},
		{"every key, in order", map[string]any{"new_str": "4", "content": "1", "text": "3", "new_string": "2"}, []string{"1", "2", "3", "4"}},
		{"empty and non-strings skipped", map[string]any{"content": "", "new_string": 3.0}, nil},
		{"MultiEdit's edits", map[string]any{"edits": []any{map[string]any{"new_string": "y"}}}, nil},
		{"nil input", nil, nil},
	} {
		if got := slices.Collect(Written(tt.input)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCommandOutput(t *testing.T) {
	for _, tt := range []struct{ out, want string }{
		{`"ok  \texample.com/m\t0.1s"`, "ok  \texample.com/m\t0.1s"},
		{`{"exitCode": 1, "stdout": "--- FAIL: TestA", "stderr": "exit status 1"}`, "--- FAIL: TestA\nexit status 1"},
		{`{"exit_code": 0, "output": "3 passed in 0.1s"}`, "3 passed in 0.1s"},
		{`{"exitCode": 0}`, `{"exitCode": 0}`},
		{`{"stdout": 3`, `{"stdout": 3`},
		{``, ``},
	} {
		e := vouch.TraceEntry{Output: json.RawMessage(tt.out)}
		if got := CommandOutput(&e); got != tt.want {
			t.Errorf("CommandOutput(%s) = %q, want %q", tt.out, got, tt.want)
		}
	}
}
