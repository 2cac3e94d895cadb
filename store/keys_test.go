package store_test

import (
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch/store"
)

func TestValidTenant(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"acme", true},
		{"a", true},
		{"0", true},
		{"team-7_prod", true},
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 64), false},
		{"", false},
		{"-acme", false},
		{"_acme", false},
		{"Acme", false},
		{"ac me", false},
		{"acme/x", false},
		{"acmé", false},
	} {
		if got := store.ValidTenant(tc.s); got != tc.want {
			t.Errorf("ValidTenant(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestNewKey(t *testing.T) {
	now := time.Date(2026, 11, 3, 9, 0, 0, 123456789, time.FixedZone("x", 3600))
	secret, k, err := store.NewKey("acme", "ci", []string{store.ScopeVerify, store.ScopeRead, store.ScopeVerify}, now)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "vk_"+k.ID+"_") || len(k.ID) != 12 || len(secret) != len("vk_")+12+1+64 {
		t.Errorf("secret %q of key %q: want vk_<12 chars>_<64 hex>", secret, k.ID)
	}
	sum := sha256.Sum256([]byte(secret))
	if string(k.Hash) != string(sum[:]) {
		t.Error("Hash is not the SHA-256 of the secret")
	}
	if strings.Contains(string(k.Hash), secret) {
		t.Error("the key holds its secret")
	}
	if k.Tenant != "acme" || k.Name != "ci" || len(k.Scopes) != 2 || !k.CreatedAt.Equal(now.Truncate(time.Microsecond)) || k.CreatedAt.Location() != time.UTC {
		t.Errorf("key = %+v", k)
	}
	id, hash, ok := store.ParseSecret(secret)
	if !ok || id != k.ID || string(hash) != string(k.Hash) {
		t.Errorf("ParseSecret = %q, %x, %v", id, hash, ok)
	}
	if !k.Matches(secret) {
		t.Error("the key does not match its secret")
	}
	other, _, _ := store.NewKey("acme", "ci", []string{store.ScopeVerify}, now)
	for _, bad := range []string{"", secret + "0", secret[:len(secret)-1] + "x", other, strings.Replace(secret, "vk_", "vx_", 1), "vk_" + k.ID} {
		if k.Matches(bad) {
			t.Errorf("the key matches %q", bad)
		}
	}
	// Another id with this key's random part does not match.
	forged := "vk_" + strings.Repeat("a", 12) + secret[len("vk_")+12:]
	if k.Matches(forged) {
		t.Error("the key matches a secret with another id")
	}
	revoked := *k
	revoked.RevokedAt = now
	if revoked.Matches(secret) {
		t.Error("a revoked key matches")
	}
	if _, _, err := store.NewKey("Acme", "x", []string{store.ScopeRead}, now); err == nil {
		t.Error("NewKey(invalid tenant) succeeded")
	}
	if _, _, err := store.NewKey("acme", "x", nil, now); err == nil {
		t.Error("NewKey(no scopes) succeeded")
	}
	if _, _, err := store.NewKey("acme", "x", []string{"root"}, now); err == nil {
		t.Error("NewKey(unknown scope) succeeded")
	}
	a, _, _ := store.NewKey("acme", "x", []string{store.ScopeRead}, now)
	b, _, _ := store.NewKey("acme", "x", []string{store.ScopeRead}, now)
	if a == b {
		t.Error("two keys have one secret")
	}
}

func TestParseSecret(t *testing.T) {
	for _, s := range []string{
		"",
		"vk_",
		"vk_abc_def",
		"vk_abcdefghijkl",
		"vk_abcdefghijkl_" + strings.Repeat("g", 64),
		"vk_ABCDEFGHIJKL_" + strings.Repeat("0", 64),
		"vk_abcdefghijk1_" + strings.Repeat("0", 64), // 1 is not in the alphabet
		"xx_abcdefghijkl_" + strings.Repeat("0", 64),
		"vk_abcdefghijkl_" + strings.Repeat("0", 63),
	} {
		if id, _, ok := store.ParseSecret(s); ok {
			t.Errorf("ParseSecret(%q) = %q, ok", s, id)
		}
	}
	if id, _, ok := store.ParseSecret("vk_abcdefghij23_" + strings.Repeat("0f", 32)); !ok || id != "abcdefghij23" {
		t.Errorf("ParseSecret(a well-formed secret) = %q, %v", id, ok)
	}
}

func TestKeyHas(t *testing.T) {
	k := &store.Key{Scopes: []string{store.ScopeVerify, store.ScopeRead}}
	admin := &store.Key{Scopes: []string{store.ScopeAdmin}}
	for _, s := range store.Scopes {
		want := s == store.ScopeVerify || s == store.ScopeRead
		if k.Has(s) != want {
			t.Errorf("verify+read key Has(%s) = %v", s, !want)
		}
		if admin.Has(s) != (s != store.ScopeOperator) {
			t.Errorf("admin key Has(%s) = %v: admin holds every scope of its tenant, never the operator's", s, admin.Has(s))
		}
	}
	operator := &store.Key{Scopes: []string{store.ScopeOperator}}
	if !operator.Has(store.ScopeOperator) || operator.Has(store.ScopeRead) {
		t.Error("an operator key holds the operator scope, and no tenant's")
	}
	if k.Has("root") {
		t.Error("a key has an unknown scope")
	}
	var none *store.Key
	if none.Has(store.ScopeRead) || none.Matches("x") {
		t.Error("a nil key has a scope or matches")
	}
}

// TestDisplayDSN shows a PostgreSQL DSN by its host, port and database
// only, whatever form its password takes.
func TestDisplayDSN(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://u:secret@db.example:6432/vouch?sslmode=disable":         "postgres://db.example:6432/vouch",
		"postgresql://u@db.example/vouch?password=secret&sslmode=disable":   "postgres://db.example:5432/vouch",
		"postgres://u:s%40cret@[::1]:5433/vouch":                            "postgres://[::1]:5433/vouch",
		"postgres://u:secret@db.example/vouch?options=-c%20search_path%3Dx": "postgres://db.example:5432/vouch",
		"postgres://u:secret@db.example:notaport/vouch":                     "postgres (unreadable DSN)",
		"/var/lib/vouch/vouch.db":                                           "/var/lib/vouch/vouch.db",
	} {
		got := store.DisplayDSN(dsn)
		if got != want {
			t.Errorf("DisplayDSN(%q) = %q, want %q", dsn, got, want)
		}
		if strings.Contains(got, "secret") || strings.Contains(got, "s%40cret") {
			t.Errorf("DisplayDSN(%q) = %q holds the password", dsn, got)
		}
	}
}
