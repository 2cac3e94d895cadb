package store

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestSplitHash(t *testing.T) {
	const body = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	for _, tc := range []struct {
		hash   string
		digest int // its bytes when kept as bytes; 0: kept as text
	}{
		{body + "/ef92ff2fb3a78a3e", 40},
		{body, 32},
		{"", 0},
		{"h", 0},
		{strings.ToUpper(body), 0},
		{body[:63] + "g", 0},
		{body + "/ef92ff2fb3a78a3", 0},
		{body + "/ef92ff2fb3a78a3e0", 0},
		{body + "/ef92ff2fb3a78a3E", 0},
		{body + "/", 0},
		{"/ef92ff2fb3a78a3e", 0},
		{body + "/ef92ff2fb3a78a3e/" + body, 0},
	} {
		text, digest := splitHash(tc.hash)
		if len(digest) != tc.digest || (tc.digest > 0) != (text == "") && tc.hash != "" {
			t.Errorf("splitHash(%q) = %q, %d bytes; want %d bytes", tc.hash, text, len(digest), tc.digest)
		}
		if tc.digest == 0 && text != tc.hash {
			t.Errorf("splitHash(%q) keeps text %q", tc.hash, text)
		}
		back, err := joinHash(text, digest)
		if err != nil || back != tc.hash {
			t.Errorf("joinHash(splitHash(%q)) = %q, %v", tc.hash, back, err)
		}
	}
	if _, err := joinHash("", make([]byte, 33)); err == nil {
		t.Error("joinHash accepted a digest of 33 bytes")
	}
	// Each row's hash is split: the digest is its one allocation.
	if n := testing.AllocsPerRun(100, func() { splitHash(body + "/ef92ff2fb3a78a3e") }); n > 1 {
		t.Errorf("splitHash allocates %v times, want 1 (the digest)", n)
	}
}

// TestRequestDigestColumn: a hash of the server's form is kept as its
// bytes, with request_hash empty; a row written before the column (its
// hash as text, no digest) reads back as it was; a digest of another
// length is an error on read, not a hash made up.
func TestRequestDigestColumn(t *testing.T) {
	s, e := openGated(t, filepath.Join(t.TempDir(), "v.db"), writerHooks{})
	ctx := t.Context()
	const hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08/ef92ff2fb3a78a3e"
	for _, id := range []string{"new", "old", "bad"} {
		v := testVerification("acme", id, 1)
		v.RequestHash = hash
		if _, err := s.Insert(ctx, v, nil); err != nil {
			t.Fatal(err)
		}
	}
	var text string
	var digest []byte
	if err := e.rdb.QueryRowContext(ctx, `SELECT request_hash, request_digest FROM verification_logs WHERE id = 'new'`).Scan(&text, &digest); err != nil {
		t.Fatal(err)
	}
	if text != "" || len(digest) != 40 {
		t.Errorf("stored request_hash %q and a digest of %d bytes; want empty and 40", text, len(digest))
	}
	if _, err := e.wdb.ExecContext(ctx, `UPDATE verification_logs SET request_hash = ?, request_digest = NULL WHERE id = 'old'`, hash); err != nil {
		t.Fatal(err)
	}
	if _, err := e.wdb.ExecContext(ctx, `UPDATE verification_logs SET request_digest = X'00' WHERE id = 'bad'`); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"new", "old"} {
		g, err := s.Get(ctx, "acme", id, 1)
		if err != nil || g.RequestHash != hash {
			t.Errorf("Get(%s).RequestHash = %q, %v; want %q", id, g.RequestHash, err, hash)
		}
	}
	if g, err := s.Get(ctx, "acme", "bad", 1); err == nil {
		t.Errorf("Get(bad) read a digest of 1 byte as %q", g.RequestHash)
	}
}
