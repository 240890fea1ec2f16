package server

import (
	"sync/atomic"

	"github.com/cespare/xxhash/v2"

	"kurz/shared/click"
	"kurz/shared/target"
)

// agentCache remembers what target.Classify said about a User-Agent: a
// scan of the whole token dictionary costs several hundred ns, while real
// traffic repeats a few thousand distinct agents. It is direct-mapped and
// lock-free: each slot is one atomic word holding 48 bits of the agent's
// hash (the rest of the hash picks the slot), the device and the class, so
// a lookup is one hash and one load, and a collision only costs a rescan.
type agentCache struct {
	slots [1 << agentBits]atomic.Uint64
}

const agentBits = 14 // 16384 slots, 128 KiB

// inspect returns target.Inspect of ua for a GET without a prefetch hint
// (the caller applies method and hint with target.RequestClass).
func (c *agentCache) inspect(ua []byte) target.Agent {
	h := xxhash.Sum64(ua)
	slot := &c.slots[h&(1<<agentBits-1)]
	tag := h >> 16 << 16
	if v := slot.Load(); v&^0xffff == tag && v&slotValid != 0 {
		return target.Agent{Device: target.Device(v & 0xff), Class: click.Class(v >> 8 & 0x3f), SocialPreview: v&slotSocial != 0}
	}
	a := target.Inspect(ua, methodGet, nil)
	v := tag | slotValid | uint64(a.Class&0x3f)<<8 | uint64(a.Device)
	if a.SocialPreview {
		v |= slotSocial
	}
	slot.Store(v)
	return a
}

const (
	slotValid  = 1 << 15
	slotSocial = 1 << 14
)

var methodGet = []byte("GET")
