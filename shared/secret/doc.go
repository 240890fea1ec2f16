// Package secret generates API keys and hashes what must never be stored in
// clear: API keys (SHA-256: they are 256-bit random, so a fast hash is
// enough and lets us look keys up by hash) and passwords (argon2id: people
// choose guessable ones, so the hash must be slow).
package secret
