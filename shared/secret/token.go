package secret

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// tokenBytes is the randomness of a token: 256 bits.
const tokenBytes = 32

// NewToken returns a fresh random token (256 bits, base64url without
// padding, 43 characters) and the hash to store: dashboard session ids
// and password reset tokens. Like API keys, tokens cannot be guessed, so
// a fast hash is enough and lets the store look them up by hash.
func NewToken() (token string, hash []byte) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error()) // never happens on Linux
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token)
}

// HashToken is the lookup hash of a token.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
