//go:build !unix

package vouch

// openFlags are the extra flags a workspace file is opened with.
const openFlags = 0
