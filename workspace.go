package vouch

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	pathpkg "path"
	"strings"

	"github.com/vouchgate/vouch/internal/jail"
)

// Workspace access. Every read of the agent's workspace goes through the
// Subject, whose Workspace is an *os.Root: no path from a request (with
// "..", absolute, or through a symlink) can leave the workspace root, and
// every open is package jail's (without blocking, the open file checked).
// A process vouch starts in the workspace (git, an allowed command) starts
// in the directory that was opened, through Dir, never through the
// workspace's path again.

// Dir returns the name to give a child process (git, an allowed command)
// as its working directory, so that it starts in the workspace that was
// opened: on Linux /proc/self/fd/N of a descriptor of the workspace held
// until [Subject.Close] (see jail.FDPath), whatever was renamed or swapped
// on the workspace's path since it was opened. Where no such name exists
// (systems other than Linux, a Linux without /proc) it is the name the
// workspace was opened by. It is "" when the subject has no workspace or
// its directory cannot be opened; git and the command runner refuse an
// empty directory.
func (s *Subject) Dir() string {
	s.dirMu.Lock()
	defer s.dirMu.Unlock()
	if s.dirDone {
		return s.dirPath
	}
	s.dirDone = true
	if s.Workspace == nil {
		return ""
	}
	f, err := jail.OpenDir(s.Workspace)
	if err != nil {
		return ""
	}
	if p, ok := jail.FDPath(f); ok {
		s.dirFile, s.dirPath = f, p
		return p
	}
	f.Close()
	s.dirPath = s.Workspace.Name()
	return s.dirPath
}

// Close releases what the subject holds for its verification: the
// descriptor behind [Subject.Dir]. It does not close the Workspace, which
// belongs to whoever opened it. After Close, Dir returns "".
func (s *Subject) Close() error {
	s.dirMu.Lock()
	defer s.dirMu.Unlock()
	s.dirDone, s.dirPath = true, ""
	if s.dirFile == nil {
		return nil
	}
	err := s.dirFile.Close()
	s.dirFile = nil
	return err
}

// FS returns the workspace as a file system whose opens are package
// jail's (a regular file or a directory, opened without blocking), for
// walking it. Without a workspace every open fails with [ErrNoWorkspace].
func (s *Subject) FS() fs.FS {
	if s.Workspace == nil {
		return noWorkspace{}
	}
	return jail.FS(s.Workspace)
}

// noWorkspace is the file system of a subject without a workspace.
type noWorkspace struct{}

func (noWorkspace) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNoWorkspace}
}

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

// Rel returns a path the request names (a claimed file, a path a check
// names) relative to the workspace: slash-separated (a backslash is taken
// as a separator) and cleaned, or "" when it lies outside the workspace or
// is the workspace itself. An absolute path is accepted when it lies under
// the request's workspace field as written. Rel only reads the path: it
// neither needs nor touches the workspace, whose reads hold the jail.
func (s *Subject) Rel(p string) string {
	workspace := ""
	if s.Request != nil {
		workspace = s.Request.Workspace
	}
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	if pathpkg.IsAbs(p) {
		ws := pathpkg.Clean(strings.ReplaceAll(workspace, `\`, "/"))
		if workspace == "" || !pathpkg.IsAbs(ws) || !strings.HasPrefix(p, ws+"/") {
			return ""
		}
		p = strings.TrimPrefix(p, ws+"/")
	}
	p = pathpkg.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return p
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

// ReadLines reads lines start..end (1-based, inclusive) of a workspace
// file. It returns the lines without their line endings ("\n" or "\r\n")
// and n, the number of lines the file has up to end: n < end means the
// file is shorter than the region. A last line without a newline counts as
// a line. Only the first MaxFileBytes of a file are read (once per
// verification, shared with [Subject.ReadFile]); a region past them gives
// [ErrFileTooLarge], never a short count. The other refusals of
// [Subject.ReadFile] apply.
func (s *Subject) ReadLines(path string, start, end int) (lines []string, n int, err error) {
	if start < 1 || end < start {
		return nil, 0, errors.New("vouch: invalid line range")
	}
	r := s.read(path)
	if r.err != nil {
		return nil, 0, r.err
	}
	idx := s.Memo(lineKey(pathpkg.Clean(path)), func() any { return lineStarts(r.data, r.whole) }).([]int)
	// idx holds the start of each line the read part shows whole, then
	// the offset where the last one ends.
	known := len(idx) - 1
	if end > known && !r.whole {
		return nil, 0, ErrFileTooLarge
	}
	n = min(end, known)
	for i := start; i <= n; i++ {
		lines = append(lines, string(trimEOL(r.data[idx[i-1]:idx[i]])))
	}
	return lines, n, nil
}

type lineKey string

// lineStarts returns the offset at which each line of data starts, then
// the offset after the last line. When data is only the start of a file
// (whole false), a last line without its newline may be cut, and is left
// out.
func lineStarts(data []byte, whole bool) []int {
	idx := []int{0}
	for off := 0; off < len(data); {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			if whole {
				idx = append(idx, len(data))
			}
			break
		}
		off += i + 1
		idx = append(idx, off)
	}
	return idx
}

func (s *Subject) maxBytes() int64 {
	if s.MaxFileBytes > 0 {
		return s.MaxFileBytes
	}
	if s.Policy != nil && s.Policy.Limits.FileBytes > 0 {
		return s.Policy.Limits.FileBytes
	}
	return 4 << 20
}

// readResult is one read of a workspace file: its first maxBytes bytes,
// and whether that is the whole file.
type readResult struct {
	data  []byte
	whole bool
	err   error
}

type fileKey string

// afterOpen, when set (by tests), is called after a workspace file is
// opened and checked, before it is read.
var afterOpen func(path string)

// read reads a workspace file once per verification: opened by
// jail.Open (without blocking, so a FIFO cannot hang it; the open file
// must be a regular file), then read through the size limit. No path is
// checked and then opened: what is read is what was checked.
func (s *Subject) read(path string) readResult {
	// One read a file, however its path is spelled ("a.go", "./a.go").
	key := fileKey(pathpkg.Clean(path))
	return s.Memo(key, func() any {
		if s.Workspace == nil {
			return readResult{err: ErrNoWorkspace}
		}
		if err := checkPath(path); err != nil {
			return readResult{err: err}
		}
		f, _, err := jail.Open(s.Workspace, path)
		if errors.Is(err, jail.ErrNotRegular) {
			return readResult{err: ErrNotRegularFile}
		}
		if err != nil {
			return readResult{err: rootErr(err)}
		}
		defer f.Close()
		if afterOpen != nil {
			afterOpen(path)
		}
		limit := s.maxBytes()
		data, err := io.ReadAll(io.LimitReader(f, limit+1))
		if err != nil {
			return readResult{err: err}
		}
		if int64(len(data)) > limit {
			return readResult{data: data[:limit]}
		}
		return readResult{data: data, whole: true}
	}).(readResult)
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
