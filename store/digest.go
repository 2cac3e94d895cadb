package store

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// A verification's RequestHash is, as the server writes it, the SHA-256
// of the request's body in hex, then "/" and the first 8 bytes of its
// policy's SHA-256 in hex when the server has a policy: 81 characters. A
// row keeps such a hash as its 32 or 40 bytes, in request_digest (0019),
// and any other text as it is, in request_hash; each row sets one of the
// two. So a hash reads back exactly as it was written.

// Lengths of a hash's parts, as bytes.
const (
	digestBody   = 32
	digestPolicy = 8
)

// splitHash returns how a row keeps hash: as bytes when hash has the
// server's form (lower-case hex), as text otherwise.
func splitHash(hash string) (text string, digest []byte) {
	body, policy, cut := strings.Cut(hash, "/")
	if len(body) != 2*digestBody || cut && len(policy) != 2*digestPolicy || !lowerHex(body) || !lowerHex(policy) {
		return hash, nil
	}
	digest, err := hex.AppendDecode(make([]byte, 0, digestBody+digestPolicy), []byte(body))
	if err == nil && cut {
		digest, err = hex.AppendDecode(digest, []byte(policy))
	}
	if err != nil {
		return hash, nil
	}
	return "", digest
}

// joinHash is the hash a row keeps as text, or as digest when that is
// set.
func joinHash(text string, digest []byte) (string, error) {
	if len(digest) == 0 {
		return text, nil
	}
	if len(digest) != digestBody && len(digest) != digestBody+digestPolicy {
		return "", fmt.Errorf("a request digest of %d bytes", len(digest))
	}
	var buf [2*(digestBody+digestPolicy) + 1]byte
	b := hex.AppendEncode(buf[:0], digest[:digestBody])
	if len(digest) > digestBody {
		b = hex.AppendEncode(append(b, '/'), digest[digestBody:])
	}
	return string(b), nil
}

// lowerHex reports whether s is lower-case hex digits only.
func lowerHex(s string) bool {
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// digestScan reads request_digest into the RequestHash that request_hash
// was read into before it: a NULL leaves that text, bytes replace it. It
// reads the driver's bytes in place, with no copy of them.
type digestScan struct{ hash *string }

// Scan implements sql.Scanner.
func (d digestScan) Scan(src any) error {
	switch src := src.(type) {
	case nil:
		return nil
	case []byte:
		h, err := joinHash(*d.hash, src)
		if err != nil {
			return err
		}
		*d.hash = h
		return nil
	}
	return fmt.Errorf("a request digest of type %T", src)
}
