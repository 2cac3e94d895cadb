package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/vouchgate/vouch"
)

// batchReader reads a batch body as it arrives, one request at a time:
// the non-blank lines of JSONL, or the elements of a JSON array. It holds
// the read buffer and at most a request's limit of the request being
// read; of a request over the limit it keeps only the length, skipping
// the rest. The body is JSON array when its first non-blank byte is '['.
type batchReader struct {
	src      io.Reader
	buf      []byte
	pos, end int
	// err is src's error once it returned one (io.EOF at its end).
	err error
	// limit is a request's limit, in bytes.
	limit int64
	// held is the request being read, up to limit bytes of it.
	held []byte
	mode int
	// elems counts the array's elements read.
	elems int
}

// The modes of a batchReader, and the states of a JSON array between
// its elements.
const (
	modeUnknown = iota // nothing read yet
	modeLines          // JSONL
	arrayStart         // after '[': an element or ']'
	arrayNext          // after an element: ',' or ']'
	arrayComma         // after ',': an element
	arrayEnd           // after ']': nothing but white space
)

// batchReadBuffer is the size of a batchReader's read buffer.
const batchReadBuffer = 64 << 10

func newBatchReader(src io.Reader, limit int64) *batchReader {
	return &batchReader{src: src, buf: make([]byte, batchReadBuffer), limit: limit}
}

// next returns the next request: its bytes (valid until the next call)
// and their length, or, for a request over the limit, nil and the length
// it has. It returns io.EOF after the last one. Any other error ends the
// body: src's (a read that failed, a body over its limit), or a
// *vouch.Error of code syntax when a JSON array does not parse. Requests
// are trimmed of the white space around them.
func (r *batchReader) next() ([]byte, int64, error) {
	if cap(r.held) > batchReadBuffer {
		r.held = nil // a large request's buffer is not kept for the rest
	}
	if r.mode == modeUnknown {
		c, ok := r.skip(isSpace)
		if !ok {
			return nil, 0, r.err // io.EOF: an empty body
		}
		r.mode = modeLines
		if c == '[' {
			r.pos++
			r.mode = arrayStart
		}
	}
	if r.mode == modeLines {
		return r.nextLine()
	}
	return r.nextElem()
}

// fill makes sure the buffer holds unread bytes, reading from src when
// it does not; false when src has ended (or failed).
func (r *batchReader) fill() bool {
	for r.pos == r.end {
		if r.err != nil {
			return false
		}
		n, err := r.src.Read(r.buf)
		r.pos, r.end, r.err = 0, n, err
	}
	return true
}

// skip passes the bytes for which space is true and returns the next
// one, without consuming it; false at the end of src.
func (r *batchReader) skip(space func(byte) bool) (byte, bool) {
	for r.fill() {
		for r.pos < r.end {
			if c := r.buf[r.pos]; !space(c) {
				return c, true
			}
			r.pos++
		}
	}
	return 0, false
}

// pieceSize counts the bytes of the request being read: size is its
// length so far, trail how many of them are white space at its end.
type pieceSize struct{ size, trail int64 }

// take adds frag to the request being read, holding what fits within
// the limit.
func (r *batchReader) take(q *pieceSize, frag []byte, space func(byte) bool) {
	if len(frag) == 0 {
		return
	}
	q.size += int64(len(frag))
	last := len(frag) - 1
	for last >= 0 && space(frag[last]) {
		last--
	}
	if last >= 0 {
		q.trail = int64(len(frag) - 1 - last)
	} else {
		q.trail += int64(len(frag))
	}
	if room := r.limit - int64(len(r.held)); room > 0 {
		r.held = append(r.held, frag[:min(int64(len(frag)), room)]...)
	}
}

// nextLine reads the next non-blank line of JSONL.
func (r *batchReader) nextLine() ([]byte, int64, error) {
	for {
		r.held = r.held[:0]
		var q pieceSize
		for ended := false; !ended; {
			if !r.fill() {
				if r.err != io.EOF {
					return nil, 0, r.err
				}
				if q.size == 0 {
					return nil, 0, io.EOF
				}
				break
			}
			frag := r.buf[r.pos:r.end]
			if i := bytes.IndexByte(frag, '\n'); i >= 0 {
				frag, ended = frag[:i], true
				r.pos += i + 1
			} else {
				r.pos = r.end
			}
			if q.size == 0 {
				for len(frag) > 0 && isSpace(frag[0]) {
					frag = frag[1:]
				}
			}
			r.take(&q, frag, isSpace)
		}
		n := q.size - q.trail
		if n > r.limit {
			return nil, n, nil
		}
		// What is held is the whole line; it may still start or end with
		// white space beyond ASCII's.
		if line := bytes.TrimSpace(r.held[:n]); len(line) > 0 {
			return line, int64(len(line)), nil
		}
	}
}

// nextElem reads the next element of a JSON array.
func (r *batchReader) nextElem() ([]byte, int64, error) {
	for {
		c, ok := r.skip(isJSONSpace)
		if !ok {
			if r.err != io.EOF {
				return nil, 0, r.err
			}
			if r.mode == arrayEnd {
				return nil, 0, io.EOF
			}
			return nil, 0, arrayError("unexpected end of JSON input")
		}
		switch r.mode {
		case arrayEnd:
			return nil, 0, arrayError(fmt.Sprintf("invalid character %q after the array", c))
		case arrayNext:
			switch c {
			case ',':
				r.pos++
				r.mode = arrayComma
				continue
			case ']':
				r.pos++
				r.mode = arrayEnd
				continue
			}
			return nil, 0, arrayError(fmt.Sprintf("invalid character %q after element %d", c, r.elems))
		case arrayStart:
			if c == ']' {
				r.pos++
				r.mode = arrayEnd
				continue
			}
		}
		if c == ',' || c == ']' {
			return nil, 0, arrayError(fmt.Sprintf("invalid character %q looking for element %d", c, r.elems+1))
		}
		break
	}
	// The element runs to the ',' or ']' outside strings and brackets.
	r.held = r.held[:0]
	var q pieceSize
	depth, inString, escaped := 0, false, false
	for ended := false; !ended; {
		if !r.fill() {
			if r.err != io.EOF {
				return nil, 0, r.err
			}
			return nil, 0, arrayError("unexpected end of JSON input")
		}
		data := r.buf[r.pos:r.end]
		i := 0
	scan:
		for ; i < len(data); i++ {
			c := data[i]
			if inString {
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
				}
				continue
			}
			switch c {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				if depth > 0 {
					depth--
				} else if c == ']' {
					ended = true
					break scan
				}
			case ',':
				if depth == 0 {
					ended = true
					break scan
				}
			}
		}
		r.take(&q, data[:i], isJSONSpace)
		r.pos += i // the ',' or ']' is read between elements
	}
	r.elems++
	r.mode = arrayNext
	n := q.size - q.trail
	if n > r.limit {
		return nil, n, nil
	}
	elem := r.held[:n]
	if !json.Valid(elem) {
		var raw json.RawMessage
		err := json.Unmarshal(elem, &raw)
		if err == nil {
			err = errors.New("not a JSON value")
		}
		return nil, 0, arrayError(fmt.Sprintf("element %d: %v", r.elems, err))
	}
	return elem, n, nil
}

// arrayError is the error of a batch that is not a valid JSON array.
func arrayError(msg string) error {
	return &vouch.Error{Code: vouch.ErrSyntax, Message: "the batch is not a valid JSON array: " + msg}
}

// isSpace reports whether c is ASCII white space (as bytes.TrimSpace
// takes it).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// isJSONSpace reports whether c is white space between JSON tokens.
func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// limitedBody reads a body of at most max bytes; the byte after them is
// a too_large error.
type limitedBody struct {
	r         io.Reader
	left, max int64
}

// Read implements io.Reader.
func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, tooLarge(-1, b.max)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, tooLarge(-1, b.max)
	}
	return n, err
}
