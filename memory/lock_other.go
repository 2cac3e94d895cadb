//go:build !unix

package memory

// lockFile is a no-op where flock is not available: updates are still
// serialised within the process, not across processes.
func lockFile(string) (func(), error) { return func() {}, nil }
