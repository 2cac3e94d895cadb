package store

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// API key secrets look like vk_<id>_<random>: the prefix, the key's id
// (12 characters of a-z and 2-7) and 32 random bytes in hex. The id finds
// the stored key; the SHA-256 of the whole secret proves it.
const (
	secretPrefix = "vk_"
	keyIDLen     = 12
	keyRandLen   = 32
	idAlphabet   = "abcdefghijklmnopqrstuvwxyz234567"
)

// ValidTenant reports whether s is a tenant name: a lower-case letter or
// digit, then up to 62 lower-case letters, digits, '_' or '-'.
func ValidTenant(s string) bool {
	if len(s) == 0 || len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '_' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// checkScopes reports an error unless scopes is a non-empty list of
// [Scopes].
func checkScopes(scopes []string) error {
	if len(scopes) == 0 {
		return errors.New("a key needs at least one scope")
	}
	for _, s := range scopes {
		if !slices.Contains(Scopes, s) {
			return fmt.Errorf("unknown scope %q (scopes: %s)", s, strings.Join(Scopes, ", "))
		}
	}
	return nil
}

// NewKey mints an API key of tenant with the given name and scopes
// (each one of [Scopes]; duplicates are dropped), created at now. It
// returns the secret, to show once and never store, and the Key to store
// with [Keyring.CreateKey], which holds the secret's hash.
func NewKey(tenant, name string, scopes []string, now time.Time) (secret string, k *Key, err error) {
	if !ValidTenant(tenant) {
		return "", nil, fmt.Errorf("store: new key: invalid tenant %q", tenant)
	}
	if err := checkScopes(scopes); err != nil {
		return "", nil, fmt.Errorf("store: new key: %w", err)
	}
	var distinct []string
	for _, s := range scopes {
		if !slices.Contains(distinct, s) {
			distinct = append(distinct, s)
		}
	}
	buf := make([]byte, keyIDLen+keyRandLen)
	if _, err := rand.Read(buf); err != nil {
		return "", nil, fmt.Errorf("store: new key: %w", err)
	}
	id := make([]byte, keyIDLen)
	for i, b := range buf[:keyIDLen] {
		id[i] = idAlphabet[int(b)%len(idAlphabet)]
	}
	secret = secretPrefix + string(id) + "_" + hex.EncodeToString(buf[keyIDLen:])
	sum := sha256.Sum256([]byte(secret))
	return secret, &Key{
		ID:        string(id),
		Tenant:    tenant,
		Name:      name,
		Hash:      sum[:],
		Scopes:    distinct,
		CreatedAt: now.UTC().Truncate(time.Microsecond),
	}, nil
}

// ParseSecret splits a secret made by [NewKey] into the key's id and the
// SHA-256 of the whole secret; ok is false when secret does not have the
// form of one.
func ParseSecret(secret string) (id string, hash []byte, ok bool) {
	rest, found := strings.CutPrefix(secret, secretPrefix)
	if !found {
		return "", nil, false
	}
	id, random, found := strings.Cut(rest, "_")
	if !found || len(id) != keyIDLen || len(random) != 2*keyRandLen {
		return "", nil, false
	}
	for i := 0; i < len(id); i++ {
		if !strings.Contains(idAlphabet, id[i:i+1]) {
			return "", nil, false
		}
	}
	if _, err := hex.DecodeString(random); err != nil {
		return "", nil, false
	}
	sum := sha256.Sum256([]byte(secret))
	return id, sum[:], true
}

// Matches reports whether secret is this key's, in constant time; a
// revoked key matches nothing.
func (k *Key) Matches(secret string) bool {
	if k == nil || !k.RevokedAt.IsZero() {
		return false
	}
	id, hash, ok := ParseSecret(secret)
	if !ok {
		return false
	}
	return subtle.ConstantTimeCompare(hash, k.Hash) == 1 && id == k.ID
}

// Has reports whether the key holds scope. Admin holds every scope of
// its tenant; operator, which reads the whole server, only a key created
// with it holds.
func (k *Key) Has(scope string) bool {
	if k == nil {
		return false
	}
	for _, s := range k.Scopes {
		if s == scope || s == ScopeAdmin && scope != ScopeOperator {
			return true
		}
	}
	return false
}
