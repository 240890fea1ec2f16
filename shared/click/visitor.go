package click

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"sync"
)

// visitorLabel separates the visitor-id key from other uses of the same
// configured secret (cookie signing): the key is HMAC(secret, label).
const visitorLabel = "kurz visitor id v1"

// visitorHasher computes visitor ids: the first 8 bytes of
// HMAC-SHA256(key, IP(16 bytes) || User-Agent). Without the key nobody can
// test a guessed IP against a stored id, and ids of different deployments
// do not match. hash.Hash is not safe for concurrent use, hence the pool.
type visitorHasher struct {
	pool sync.Pool // *visitorState
}

type visitorState struct {
	mac hash.Hash
	buf [16 + MaxUA]byte
	sum [sha256.Size]byte
}

func newVisitorHasher(secret []byte) *visitorHasher {
	derive := hmac.New(sha256.New, secret)
	derive.Write([]byte(visitorLabel))
	key := derive.Sum(nil)
	v := &visitorHasher{}
	v.pool.New = func() any { return &visitorState{mac: hmac.New(sha256.New, key)} }
	return v
}

func (v *visitorHasher) id(ip *[16]byte, ua []byte) uint64 {
	st := v.pool.Get().(*visitorState)
	// Copy into the pooled buffer first: handing the caller's slices to the
	// hash interface would make them escape to the heap.
	n := copy(st.buf[:16], ip[:])
	n += copy(st.buf[16:], ua)
	st.mac.Reset()
	st.mac.Write(st.buf[:n])
	id := binary.BigEndian.Uint64(st.mac.Sum(st.sum[:0]))
	v.pool.Put(st)
	return id
}
