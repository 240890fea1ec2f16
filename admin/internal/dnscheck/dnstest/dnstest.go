// Package dnstest is a small DNS server on loopback UDP for tests: it
// answers A, AAAA and CNAME questions from a fixed zone, following CNAMEs
// as a recursive resolver would, and can be told to fail or stay silent.
package dnstest

import (
	"maps"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// Zone maps a lower-case name without the final dot to its records.
type Zone map[string]Records

// Records of one name: a CNAME, or addresses.
type Records struct {
	CNAME    string
	Addrs    []netip.Addr
	ServFail bool // answer SERVFAIL for this name
	Silent   bool // never answer for this name
}

// Server answers from its zone until the test ends.
type Server struct {
	Addr    string // host:port
	mu      sync.Mutex
	zone    Zone
	queries int
}

// Start serves zone on 127.0.0.1.
func Start(t testing.TB, zone Zone) *Server {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: pc.LocalAddr().String(), zone: maps.Clone(zone)}
	done := make(chan struct{})
	go s.serve(pc, done)
	t.Cleanup(func() { pc.Close(); <-done })
	return s
}

// Queries is how many questions the server has read.
func (s *Server) Queries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries
}

// Set changes one name's records (Start copied the zone it was given).
func (s *Server) Set(name string, r Records) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.zone[name] = r
}

func (s *Server) serve(pc net.PacketConn, done chan struct{}) {
	defer close(done)
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if out, ok := s.answer(buf[:n]); ok {
			pc.WriteTo(out, from) //nolint:errcheck // a lost answer is a test's timeout
		}
	}
}

func (s *Server) answer(req []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(req)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	name := strings.TrimSuffix(strings.ToLower(q.Name.String()), ".")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries++
	rec, found := s.zone[name]
	if rec.Silent {
		return nil, false
	}
	rh := dnsmessage.Header{ID: h.ID, Response: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	switch {
	case rec.ServFail:
		rh.RCode = dnsmessage.RCodeServerFailure
	case !found:
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	b.StartQuestions()
	b.Question(q)
	b.StartAnswers()
	if rh.RCode == dnsmessage.RCodeSuccess {
		s.records(&b, q, name)
	}
	out, err := b.Finish()
	return out, err == nil
}

// records writes name's answer to q: the CNAME chain, then the final
// name's addresses of q's type (none for a CNAME question).
func (s *Server) records(b *dnsmessage.Builder, q dnsmessage.Question, name string) {
	for range 8 {
		rec := s.zone[name]
		owner := dnsmessage.MustNewName(name + ".")
		if rec.CNAME != "" {
			b.CNAMEResource(rrHeader(owner, dnsmessage.TypeCNAME), dnsmessage.CNAMEResource{CNAME: dnsmessage.MustNewName(rec.CNAME + ".")})
			if q.Type == dnsmessage.TypeCNAME {
				return
			}
			name = rec.CNAME
			continue
		}
		for _, a := range rec.Addrs {
			switch {
			case a.Is4() && q.Type == dnsmessage.TypeA:
				b.AResource(rrHeader(owner, dnsmessage.TypeA), dnsmessage.AResource{A: a.As4()})
			case a.Is6() && q.Type == dnsmessage.TypeAAAA:
				b.AAAAResource(rrHeader(owner, dnsmessage.TypeAAAA), dnsmessage.AAAAResource{AAAA: a.As16()})
			}
		}
		return
	}
}

func rrHeader(name dnsmessage.Name, t dnsmessage.Type) dnsmessage.ResourceHeader {
	return dnsmessage.ResourceHeader{Name: name, Type: t, Class: dnsmessage.ClassINET, TTL: 60}
}
