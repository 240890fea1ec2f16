package secret

import "crypto/sha256"

// InvitePrefix marks kurz invitation codes so they are not mistaken for
// API keys.
const InvitePrefix = "kurzinv_"

// inviteChars base62 characters carry 24*log2(62) ≈ 143 bits: a code cannot
// be guessed, so only its SHA-256 is stored and looked up, like API keys.
const inviteChars = 24

// NewInviteCode returns a fresh invitation code and the hash to store.
func NewInviteCode() (code string, hash []byte) {
	code = InvitePrefix + RandomString(inviteChars)
	return code, HashInviteCode(code)
}

// HashInviteCode is the lookup hash of code.
func HashInviteCode(code string) []byte {
	h := sha256.Sum256([]byte(code))
	return h[:]
}
