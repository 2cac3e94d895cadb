package vouch

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"strings"
)

// Workspace access. Every read of the agent's workspace goes through the
// Subject, whose Workspace is an *os.Root: no path from a request (with
// "..", absolute, or through a symlink) can leave the workspace root.

// checkPath refuses paths that are absolute or name a drive.
func checkPath(path string) error {
	if path == "" || strings.HasPrefix(path, "/") || strings.HasPrefix(path, `\`) || (len(path) > 1 && path[1] == ':') {
		return ErrOutsideRoot
	}
	return nil
}

// rootErr maps an error of the workspace root to the package's errors: a
// path that escapes the root is [ErrOutsideRoot].
func rootErr(err error) error {
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if strings.Contains(err.Error(), "escapes") {
		return ErrOutsideRoot
	}
	return err
}

// Stat returns the file information of a workspace file without following
// it out of the workspace.
func (s *Subject) Stat(path string) (fs.FileInfo, error) {
	if s.Workspace == nil {
		return nil, ErrNoWorkspace
	}
	if err := checkPath(path); err != nil {
		return nil, err
	}
	fi, err := s.Workspace.Stat(path)
	return fi, rootErr(err)
}

// ReadLines reads lines start..end (1-based, inclusive) of a workspace file
// and stops there: only those lines are read, however long the file. It
// returns the lines without their line endings ("\n" or "\r\n") and n, the
// number of lines the file has up to end: n < end means the file is shorter
// than the region. A last line without a newline counts as a line. The same
// refusals as [Subject.ReadFile] apply.
func (s *Subject) ReadLines(path string, start, end int) (lines []string, n int, err error) {
	if start < 1 || end < start {
		return nil, 0, errors.New("vouch: invalid line range")
	}
	fi, err := s.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, ErrNotRegularFile
	}
	f, err := s.Workspace.Open(path)
	if err != nil {
		return nil, 0, rootErr(err)
	}
	defer f.Close()
	r := bufio.NewReader(io.LimitReader(f, s.maxBytes()))
	for n < end {
		line, err := r.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			// A very long line: keep it only if it is in the region.
			more, err2 := r.ReadSlice('\n')
			if n+1 >= start {
				line = append(append([]byte(nil), line...), more...)
			}
			err = err2
		}
		if len(line) > 0 {
			n++
			if n >= start {
				lines = append(lines, string(trimEOL(line)))
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, err
		}
	}
	return lines, n, nil
}

func (s *Subject) maxBytes() int64 {
	if s.MaxFileBytes > 0 {
		return s.MaxFileBytes
	}
	return 4 << 20
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// CountLines counts the lines of a text as vouch does everywhere: each "\n"
// ends a line ("\r\n" is one ending), and a last line without a newline
// counts as a line. An empty text has no lines.
func CountLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}
