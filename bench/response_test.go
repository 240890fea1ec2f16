package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseHead(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		status    int
		keepAlive bool
		bodyLen   int64
		chunked   bool
		err       error
	}{
		{"content-length", "HTTP/1.1 302 Found\r\nLocation: https://e.com/\r\nContent-Length: 5\r\n\r\n", 302, true, 5, false, nil},
		{"header case", "HTTP/1.1 302 Found\r\nCONTENT-LENGTH: 3\r\nconnection: Keep-Alive\r\n\r\n", 302, true, 3, false, nil},
		{"connection close", "HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 2\r\n\r\n", 404, false, 2, false, nil},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 200, true, -1, true, nil},
		{"no body on 204", "HTTP/1.1 204 No Content\r\n\r\n", 204, true, 0, false, nil},
		{"http/1.0", "HTTP/1.0 302 Found\r\nContent-Length: 0\r\n\r\n", 302, false, 0, false, nil},
		{"bare LF", "HTTP/1.1 302 Found\nContent-Length: 1\n\n", 302, true, 1, false, nil},
		{"no length", "HTTP/1.1 200 OK\r\nServer: x\r\n\r\n", 200, true, -1, false, nil},
		{"garbage", "SSH-2.0-OpenSSH\r\n\r\n", 0, false, 0, false, errMalformed},
		{"bad status", "HTTP/1.1 3x2 Found\r\n\r\n", 0, false, 0, false, errMalformed},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0, false, 0, false, errMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, ok, err := parseHead([]byte(tc.in + "body bytes"))
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if tc.err != nil {
				return
			}
			if !ok || h.size != len(tc.in) || h.status != tc.status || h.keepAlive != tc.keepAlive || h.bodyLen != tc.bodyLen || h.chunked != tc.chunked {
				t.Fatalf("got ok=%v %+v, want size %d status %d keep-alive %v body %d chunked %v", ok, h, len(tc.in), tc.status, tc.keepAlive, tc.bodyLen, tc.chunked)
			}
			for i := range len(tc.in) - 1 { // every strict prefix is incomplete
				if _, ok, err := parseHead([]byte(tc.in[:i])); ok || err != nil {
					t.Fatalf("prefix of %d bytes: ok=%v err=%v, want incomplete", i, ok, err)
				}
			}
		})
	}
}

func TestChunkedSize(t *testing.T) {
	const body = "5\r\nhello\r\nA;ext=1\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n"
	n, ok, err := chunkedSize([]byte(body + "HTTP/1.1 200 OK"))
	if err != nil || !ok || n != len(body) {
		t.Fatalf("got %d ok=%v err=%v, want %d", n, ok, err, len(body))
	}
	for i := range len(body) - 1 {
		if _, ok, err := chunkedSize([]byte(body[:i])); ok || err != nil {
			t.Fatalf("prefix of %d bytes: ok=%v err=%v, want incomplete", i, ok, err)
		}
	}
	if _, _, err := chunkedSize([]byte("zz\r\n")); !errors.Is(err, errMalformed) {
		t.Fatalf("bad chunk size: err = %v", err)
	}
}

func TestRequestSetBuild(t *testing.T) {
	tables, err := loadTables("")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &loadConfig{Addr: "127.0.0.1:1", Entries: testEntries(), Tables: tables, CountryHeader: "CF-IPCountry", XFF: true, Seed: 1}
	rs := newRequestSet(cfg)
	humans := 0
	for r := range uint64(numVariants) {
		req, human := rs.build(nil, 2, r|r<<16)
		s := string(req)
		for _, want := range []string{"GET /b1 HTTP/1.1\r\nHost: go.brand.test\r\n", "\r\nUser-Agent: ", "\r\nAccept-Language: ", "\r\nCF-IPCountry: ", "\r\nX-Forwarded-For: "} {
			if !strings.Contains(s, want) {
				t.Fatalf("request %q lacks %q", s, want)
			}
		}
		if !strings.HasSuffix(s, "\r\n\r\n") || strings.Count(s, "\r\n\r\n") != 1 {
			t.Fatalf("request %q does not end its head exactly once", s)
		}
		if human {
			humans++
		}
	}
	if humans == 0 || humans == numVariants {
		t.Fatalf("%d of %d visitors human: the tables' classes are not represented", humans, numVariants)
	}
	if got := string(rs.line(0)); got != "GET /a1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n" {
		t.Fatalf("default host line %q", got)
	}
}

func TestRunLoadUnreachable(t *testing.T) {
	tables, err := loadTables("")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &loadConfig{Addr: "127.0.0.1:1", Conns: 2, Duration: 300 * time.Millisecond, ZipfS: 1.1, ZipfV: 1, Seed: 1, Entries: testEntries(), Tables: tables, Timeout: time.Second}
	res, err := runLoad(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed != 0 || res.Errors["connection refused"] == 0 {
		t.Fatalf("completed %d, errors %v: want only refused connections", res.Completed, res.Errors)
	}
}
