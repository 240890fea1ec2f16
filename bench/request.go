package main

import (
	"math/rand/v2"
	"strconv"
)

// Requests are assembled from pre-built byte pieces so that the hot loop
// only copies bytes: the request line and Host of each link, one of a
// small set of visitor header blocks (User-Agent, Accept-Language,
// country, Referer drawn once from the weighted tables) and, with --xff,
// one of a set of X-Forwarded-For lines. Per request that is three
// appends into the worker's buffer: no formatting, no header maps.

// numVariants visitor header blocks are drawn from the tables. 512 keeps
// every table row with weight >= 1/512 of its table represented while the
// blocks stay in the CPU cache.
const numVariants = 512

// numXFF client addresses are varied over with --xff.
const numXFF = 4096

// visitor is one pre-built header block and whether the edge's classifier
// sees it as a human (the only visits the zero-loss check expects in
// ClickHouse's human count).
type visitor struct {
	hdr   []byte
	human bool
}

// requestSet holds every piece the workers assemble requests from. It is
// built once per run and read-only afterwards (shared by all workers).
type requestSet struct {
	lines    []byte   // "GET /alias HTTP/1.1\r\nHost: h\r\n" of every entry, back to back
	lineEnd  []uint32 // lines[lineEnd[i-1]:lineEnd[i]] is entry i's
	visitors []visitor
	xff      [][]byte // "X-Forwarded-For: ip\r\n"; nil without --xff
}

func newRequestSet(cfg *loadConfig) *requestSet {
	rs := &requestSet{lineEnd: make([]uint32, len(cfg.Entries))}
	def := cfg.DefaultHost
	if def == "" {
		def = cfg.Addr
	}
	rs.lines = make([]byte, 0, len(cfg.Entries)*(32+len(def)))
	for i, e := range cfg.Entries {
		h := e.Host
		if h == "" {
			h = def
		}
		rs.lines = append(rs.lines, "GET /"...)
		rs.lines = append(rs.lines, e.Alias...)
		rs.lines = append(rs.lines, " HTTP/1.1\r\nHost: "...)
		rs.lines = append(rs.lines, h...)
		rs.lines = append(rs.lines, "\r\n"...)
		rs.lineEnd[i] = uint32(len(rs.lines))
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x76697369))
	t := cfg.Tables
	rs.visitors = make([]visitor, numVariants)
	for i := range rs.visitors {
		ua := t.agents.pick(r.Uint64())
		var b []byte
		b = appendHeader(b, "User-Agent", t.agents.values[ua])
		b = appendHeader(b, "Accept-Language", t.languages.values[t.languages.pick(r.Uint64())])
		if cfg.CountryHeader != "" {
			b = appendHeader(b, cfg.CountryHeader, t.countries.values[t.countries.pick(r.Uint64())])
		}
		if ref := t.referrers.values[t.referrers.pick(r.Uint64())]; ref != "-" {
			b = appendHeader(b, "Referer", ref)
		}
		rs.visitors[i] = visitor{hdr: b, human: t.agents.class[ua] == "human"}
	}
	if cfg.XFF {
		xr := rand.New(rand.NewPCG(cfg.Seed, 0x786666))
		rs.xff = make([][]byte, numXFF)
		for i := range rs.xff {
			// Public-looking IPv4s (11.x-210.x), stable per seed.
			ip := strconv.Itoa(11+xr.IntN(200)) + "." + strconv.Itoa(xr.IntN(256)) + "." + strconv.Itoa(xr.IntN(256)) + "." + strconv.Itoa(1+xr.IntN(254))
			rs.xff[i] = appendHeader(nil, "X-Forwarded-For", ip)
		}
	}
	return rs
}

func appendHeader(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, ": "...)
	b = append(b, value...)
	return append(b, "\r\n"...)
}

// line is entry i's request line and Host header.
func (rs *requestSet) line(i int) []byte {
	var from uint32
	if i > 0 {
		from = rs.lineEnd[i-1]
	}
	return rs.lines[from:rs.lineEnd[i]]
}

// build appends the request for entry idx to dst, with the visitor and XFF
// slot picked by the random bits r, and reports whether the visitor is human.
func (rs *requestSet) build(dst []byte, idx int, r uint64) ([]byte, bool) {
	v := &rs.visitors[r%numVariants]
	dst = append(dst, rs.line(idx)...)
	dst = append(dst, v.hdr...)
	if rs.xff != nil {
		dst = append(dst, rs.xff[(r>>16)%numXFF]...)
	}
	return append(dst, "\r\n"...), v.human
}
