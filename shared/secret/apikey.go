package secret

import (
	"crypto/rand"
	"crypto/sha256"
	"math/big"
	"strings"
)

// KeyPrefix marks kurz API keys so leaked keys are recognisable by scanners.
const KeyPrefix = "kurz_"

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// keyChars base62 characters carry 43*log2(62) ≈ 256 bits.
const keyChars = 43

// NewAPIKey returns a fresh random key and the hash to store.
func NewAPIKey() (key string, hash []byte) {
	var b strings.Builder
	b.Grow(len(KeyPrefix) + keyChars)
	b.WriteString(KeyPrefix)
	max := big.NewInt(int64(len(base62)))
	for range keyChars {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic("crypto/rand failed: " + err.Error()) // never happens on Linux
		}
		b.WriteByte(base62[n.Int64()])
	}
	key = b.String()
	return key, HashAPIKey(key)
}

// HashAPIKey is the lookup hash of key.
func HashAPIKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// RandomString returns n random base62 characters (aliases, codes).
func RandomString(n int) string {
	b := make([]byte, n)
	max := big.NewInt(int64(len(base62)))
	for i := range b {
		v, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic("crypto/rand failed: " + err.Error())
		}
		b[i] = base62[v.Int64()]
	}
	return string(b)
}
