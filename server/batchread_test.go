package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/vouchgate/vouch"
)

// splitWhole is how a batch body was split before it was read as a
// stream: the whole body, then its JSON array's elements or its
// non-blank lines. The stream must read the same requests.
func splitWhole(body []byte) ([][]byte, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(trimmed, &elems); err != nil {
			return nil, err
		}
		out := make([][]byte, len(elems))
		for i, e := range elems {
			out[i] = []byte(e)
		}
		return out, nil
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, len(body)+1)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			out = append(out, bytes.Clone(line))
		}
	}
	return out, sc.Err()
}

// piece is one request a batchReader read: its bytes, or, over the
// limit, its size.
type piece struct {
	raw  string
	size int64
}

// readAll reads every request of body through a batchReader with the
// given limit, src wrapping the body's reader.
func readAll(body string, limit int64, src func(io.Reader) io.Reader) ([]piece, error) {
	r := newBatchReader(src(strings.NewReader(body)), limit)
	var out []piece
	for {
		raw, size, err := r.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if raw == nil {
			out = append(out, piece{size: size})
			continue
		}
		if size != int64(len(raw)) {
			return out, errors.New("a request's size is not its length")
		}
		out = append(out, piece{raw: string(raw)})
	}
}

// readers are the ways a body may arrive: whole, a byte at a time, in
// halves of what is asked for, with its end told with the last bytes.
var readers = map[string]func(io.Reader) io.Reader{
	"whole":   func(r io.Reader) io.Reader { return r },
	"bytes":   iotest.OneByteReader,
	"halves":  iotest.HalfReader,
	"dataerr": iotest.DataErrReader,
}

// TestBatchReaderSplitsAsBefore: with no request over the limit, the
// stream reads the requests the whole body was split into, and refuses
// the arrays it refused, however the body arrives.
func TestBatchReaderSplitsAsBefore(t *testing.T) {
	bodies := []string{
		"",
		"  \n\n\t\n",
		`{"a":1}`,
		"{\"a\":1}\n{\"b\":2}\n",
		"\r\n  {\"a\":1}  \r\n\n\n\t{\"b\": [1, 2]}\t\n   \n{\"c\"",
		"{\"a\":1}\n\v\f\n{\"b\":2}\u00a0\n\u00a0\n",
		"not json at all\n[1,2]\n",
		"[]",
		" \n [ ] \n ",
		`[{"a":1},{"b":[1,{"c":"]"}]}]`,
		`[ {"s":"a,b]c}\"d\\"} , 12 , "x" , null , [ ] , {} ]`,
		"[\n{\"a\":\n1}\n,\n\t{\"b\":2}\n]\n",
		`[{"a":1},]`,
		`[,{"a":1}]`,
		`[{"a":1}`,
		`[{"a":1}] x`,
		`[{"a":1}] ]`,
		`[{"a":1} {"b":2}]`,
		`[{"a":1}}]`,
		`[{"a":]`,
		`[{"a":1]]`,
		`[1 2]`,
		`["unterminated]`,
		`[tru]`,
		`[true, false, -1.5e3]`,
	}
	for _, body := range bodies {
		want, wantErr := splitWhole([]byte(body))
		for name, src := range readers {
			got, err := readAll(body, 1<<20, src)
			if (err != nil) != (wantErr != nil) {
				t.Errorf("%q (%s): error %v, want %v", body, name, err, wantErr)
				continue
			}
			if err != nil {
				var ve *vouch.Error
				if !errors.As(err, &ve) || ve.Code != vouch.ErrSyntax || !strings.Contains(ve.Message, "not a valid JSON array") {
					t.Errorf("%q (%s): error %v, want a syntax error", body, name, err)
				}
				continue
			}
			if len(got) != len(want) {
				t.Errorf("%q (%s): %d requests %+v, want %d %q", body, name, len(got), got, len(want), want)
				continue
			}
			for i := range want {
				if got[i].raw != string(want[i]) {
					t.Errorf("%q (%s): request %d = %q, want %q", body, name, i, got[i].raw, want[i])
				}
			}
		}
	}
}

// TestBatchReaderLimit: a request over the limit is read as its size
// alone, trimmed as a held one is, and the requests around it are read
// whole; one within the limit is held however much white space ends it.
func TestBatchReaderLimit(t *testing.T) {
	long := strings.Repeat("x", 30)
	for _, tc := range []struct {
		body string
		want []piece
	}{
		{"{\"a\":1}\n" + long + "\n{\"b\":2}", []piece{{raw: `{"a":1}`}, {size: 30}, {raw: `{"b":2}`}}},
		{"  \t" + long + "   \r\n", []piece{{size: 30}}},
		{long[:10] + strings.Repeat(" ", 40) + "\n", []piece{{raw: long[:10]}}},
		{long[:10] + strings.Repeat(" ", 40) + "y\n", []piece{{size: 51}}},
		{long[:16] + "\n" + long[:17] + "\n", []piece{{raw: long[:16]}, {size: 17}}},
		{"[" + `"` + long + `"` + ` , {"a":1}]`, []piece{{size: 32}, {raw: `{"a":1}`}}},
		{`[{"a":"` + long + `"}   ,"` + long[:14] + `"]`, []piece{{size: 38}, {raw: `"` + long[:14] + `"`}}},
	} {
		for name, src := range readers {
			got, err := readAll(tc.body, 16, src)
			if err != nil {
				t.Errorf("%q (%s): %v", tc.body, name, err)
				continue
			}
			if len(got) != len(tc.want) {
				t.Errorf("%q (%s): %+v, want %+v", tc.body, name, got, tc.want)
				continue
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("%q (%s): request %d = %+v, want %+v", tc.body, name, i, got[i], tc.want[i])
				}
			}
		}
	}
}

// endless is a reader of n bytes of c, made as they are read.
type endless struct {
	c byte
	n int64
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n == 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), e.n)
	for i := range k {
		p[i] = e.c
	}
	e.n -= k
	return int(k), nil
}

// TestBatchReaderHoldsNoMoreThanTheLimit: a line and an array element of
// 64 MiB are each read as their size, holding no more of them than the
// limit.
func TestBatchReaderHoldsNoMoreThanTheLimit(t *testing.T) {
	const size, limit = 64 << 20, 4 << 10
	for name, body := range map[string]io.Reader{
		"line":    io.MultiReader(strings.NewReader("{\"a\":1}\n"), &endless{'x', size}, strings.NewReader("\n{\"b\":2}\n")),
		"element": io.MultiReader(strings.NewReader(`[{"a":1},"`), &endless{'x', size - 2}, strings.NewReader(`",{"b":2}]`)),
	} {
		r := newBatchReader(body, limit)
		var got []piece
		for {
			raw, n, err := r.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = append(got, piece{string(raw), n})
			if cap(r.held) > limit || cap(r.buf) > batchReadBuffer {
				t.Fatalf("%s: the reader holds %d bytes of the request and %d of buffer", name, cap(r.held), cap(r.buf))
			}
		}
		want := []piece{{`{"a":1}`, 7}, {"", size}, {`{"b":2}`, 7}}
		if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("%s: read %+v, want %+v", name, got, want)
		}
	}
}

// TestBatchReaderErrors: a read that fails ends the body with its error;
// so does a body over its limit, with a too_large one.
func TestBatchReaderErrors(t *testing.T) {
	boom := errors.New("connection reset")
	for _, body := range []string{"{\"a\":1}\n{\"b\"", `[{"a":1},{"b"`, "{\"a\":1}\n"} {
		r := newBatchReader(io.MultiReader(strings.NewReader(body), iotest.ErrReader(boom)), 1<<10)
		var err error
		for err == nil {
			_, _, err = r.next()
		}
		if !errors.Is(err, boom) {
			t.Errorf("%q then a failed read: %v, want the read's error", body, err)
		}
	}

	body := "{\"a\":1}\n{\"b\":2}\n"
	for _, over := range []bool{false, true} {
		limit := int64(len(body))
		if over {
			limit--
		}
		r := newBatchReader(&limitedBody{r: iotest.HalfReader(strings.NewReader(body)), left: limit, max: limit}, 1<<10)
		n := 0
		var err error
		for {
			if _, _, err = r.next(); err != nil {
				break
			}
			n++
		}
		var ve *vouch.Error
		switch {
		case !over && (err != io.EOF || n != 2):
			t.Errorf("a body of its limit: %d requests, then %v", n, err)
		case over && (!errors.As(err, &ve) || ve.Code != vouch.ErrTooLarge):
			t.Errorf("a body a byte over its limit: %d requests, then %v; want too_large", n, err)
		}
	}
}
