//go:build !linux

package main

// evictPages does nothing where the page cache cannot be told to drop a
// file's pages.
func evictPages(string) error { return nil }
