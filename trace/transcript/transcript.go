// Package transcript reads an agent's session log whatever its format:
// [Detect] names the format from the start of the log, and [Read] detects
// it and reads the log with its importer (trace/claudecode, trace/miniswe,
// trace/openai, trace/otelgenai). Package trace itself cannot do this: the
// importers import it.
package transcript

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/claudecode"
	"github.com/vouchgate/vouch/trace/internal/session"
	"github.com/vouchgate/vouch/trace/miniswe"
	"github.com/vouchgate/vouch/trace/openai"
	"github.com/vouchgate/vouch/trace/otelgenai"
)

// Format names a kind of session log.
type Format string

// The formats.
const (
	ClaudeCode      Format = "claude-code"      // a Claude Code session log (JSONL)
	MiniSWE         Format = "mini-swe-agent"   // a mini-swe-agent trajectory
	OpenAIChat      Format = "openai-chat"      // OpenAI Chat Completions messages
	OpenAIResponses Format = "openai-responses" // OpenAI Responses API items
	OTelGenAI       Format = "otel-genai"       // OpenTelemetry GenAI spans (OTLP JSON)
)

// Formats returns the formats, in the order [Detect] tries them.
func Formats() []Format {
	return []Format{OTelGenAI, ClaudeCode, MiniSWE, OpenAIResponses, OpenAIChat}
}

// Reader returns the importer of a format, nil for an unknown one.
func Reader(f Format) func(io.Reader) (*trace.Transcript, error) {
	switch f {
	case ClaudeCode:
		return claudecode.Read
	case MiniSWE:
		return miniswe.Read
	case OpenAIChat:
		return openai.ReadChat
	case OpenAIResponses:
		return openai.ReadResponses
	case OTelGenAI:
		return otelgenai.Read
	}
	return nil
}

// DetectBytes is how much of the start of a log [Detect] reads.
const DetectBytes = 1 << 20

// MaxBytes bounds a log [Read] reads.
const MaxBytes = 256 << 20

// ErrUnknown is wrapped by the error of a log whose format [Detect] cannot
// tell.
var ErrUnknown = errors.New("unknown session log format")

// ErrTooLarge is returned by [Read] for a log over [MaxBytes].
var ErrTooLarge = fmt.Errorf("session log over %d bytes", MaxBytes)

// Detect names the format of a log from its start (at most [DetectBytes]
// are looked at; a prefix cut anywhere will do). It reads the names of the
// JSON members and a few values:
//
//   - otel-genai: a resourceSpans member (OTLP JSON);
//   - claude-code: top-level objects with the members of Claude Code's
//     lines (sessionId, parentUuid, isSidechain, userType...), or a type
//     user or assistant beside a message;
//   - mini-swe-agent: a trajectory_format or mini_version member, or the
//     text of its protocol
//     (```mswea_bash_command, COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT, an
//     observation starting <returncode>);
//   - openai-responses and openai-chat: as [openai.Sniff] tells them.
//
// A log it cannot place is an error wrapping [ErrUnknown] that says what it
// saw: not JSON, or the member names it found.
func Detect(prefix []byte) (Format, error) {
	if len(prefix) > DetectBytes {
		prefix = prefix[:DetectBytes]
	}
	var otel, claude, claudeType, claudeMessage, mswe bool
	var top []string // the member names of top-level objects, first seen first
	values := 0
	scanErr := session.Scan(prefix, func(depth int, name string, kind jsontext.Kind, s string) bool {
		values++
		if depth == 1 && name != "" && !slices.Contains(top, name) && len(top) < 12 {
			top = append(top, name)
		}
		switch name {
		case "resourceSpans":
			otel = true
		case "sessionId", "parentUuid", "isSidechain", "userType", "leafUuid":
			claude = claude || depth == 1
		case "type":
			if depth == 1 {
				switch s {
				case "user", "assistant", "system":
					claudeType = true
				case "file-history-snapshot", "queue-operation", "summary":
					claude = true
				}
			}
		case "message":
			claudeMessage = claudeMessage || depth == 1 && kind == '{'
		case "trajectory_format", "mini_version":
			mswe = true
		case "content":
			if kind == '"' && (strings.Contains(s, "```mswea_bash_command") || strings.Contains(s, "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT") ||
				strings.HasPrefix(strings.TrimSpace(s), "<returncode>")) {
				mswe = true
			}
		}
		return !otel
	})
	switch {
	case otel:
		return OTelGenAI, nil
	case claude || claudeType && claudeMessage:
		return ClaudeCode, nil
	case mswe:
		return MiniSWE, nil
	}
	switch openai.Sniff(prefix) {
	case openai.Responses:
		return OpenAIResponses, nil
	case openai.Chat:
		return OpenAIChat, nil
	}
	return "", unknown(prefix, values, top, scanErr)
}

// unknown phrases what Detect saw in a log it cannot place.
func unknown(prefix []byte, values int, top []string, scanErr error) error {
	head := strings.TrimSpace(strings.TrimPrefix(string(prefix), "\ufeff"))
	switch {
	case head == "":
		return fmt.Errorf("%w: the log is empty", ErrUnknown)
	case head[0] != '{' && head[0] != '[':
		return fmt.Errorf("%w: not JSON (it starts %q)", ErrUnknown, trace.Excerpt(head, 40))
	case scanErr != nil && len(top) == 0:
		return fmt.Errorf("%w: %v", ErrUnknown, scanErr)
	case values == 0:
		return fmt.Errorf("%w: malformed JSON at the start", ErrUnknown)
	case len(top) == 0:
		return fmt.Errorf("%w: JSON without objects of any known format", ErrUnknown)
	}
	return fmt.Errorf("%w: JSON objects with members %s, none of a known format (want %s)", ErrUnknown, strings.Join(top, ", "), formatList())
}

func formatList() string {
	var names []string
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// Read detects the format of a log from its first [DetectBytes] and reads
// it with the format's importer. It reads at most [MaxBytes]: a longer
// log is an error ([ErrTooLarge]).
func Read(r io.Reader) (*trace.Transcript, Format, error) {
	br := bufio.NewReaderSize(&limited{r: r, n: MaxBytes}, DetectBytes)
	prefix, err := br.Peek(DetectBytes)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, "", err
	}
	f, err := Detect(prefix)
	if err != nil {
		return nil, "", err
	}
	t, err := Reader(f)(br)
	if err != nil {
		return nil, f, err
	}
	return t, f, nil
}

// limited reads at most n bytes from r, and fails with ErrTooLarge when r
// holds more.
type limited struct {
	r io.Reader
	n int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.n <= 0 {
		// One more byte tells a log of exactly n bytes from a longer one.
		var one [1]byte
		k, err := io.ReadFull(l.r, one[:])
		if k > 0 {
			return 0, ErrTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	k, err := l.r.Read(p)
	l.n -= int64(k)
	return k, err
}
