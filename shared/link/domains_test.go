package link

import (
	"errors"
	"testing"
)

func TestParseDomain(t *testing.T) {
	tests := []struct {
		in, domain, host string
		err              error
	}{
		{"https://go.example.com", "https://go.example.com", "go.example.com", nil},
		{"https://Go.Example.COM/", "https://go.example.com", "go.example.com", nil},
		{"HTTP://go.example.com:80", "http://go.example.com", "go.example.com", nil},
		{"https://go.example.com:443/", "https://go.example.com", "go.example.com", nil},
		{"http://go.example.com:443", "http://go.example.com:443", "go.example.com:443", nil},
		{"https://go.example.com:8443", "https://go.example.com:8443", "go.example.com:8443", nil},
		{"https://go.example.com.", "https://go.example.com", "go.example.com", nil},
		{"http://[2001:DB8::1]:8080", "http://[2001:db8::1]:8080", "[2001:db8::1]:8080", nil},
		{"", "", "", ErrURLRequired},
		{"go.example.com", "", "", ErrURLScheme},
		{"ftp://go.example.com", "", "", ErrURLScheme},
		{"https://go.example.com/x", "", "", ErrDomainExtra},
		{"https://go.example.com//", "", "", ErrDomainExtra},
		{"https://go.example.com?a=1", "", "", ErrDomainExtra},
		{"https://go.example.com?", "", "", ErrDomainExtra},
		{"https://go.example.com#", "", "", ErrDomainExtra},
		{"https://go.example.com/#top", "", "", ErrDomainExtra},
		{"https://u:p@go.example.com", "", "", ErrURLUserinfo},
		{"https://go.example.com:0", "", "", ErrDomainPort},
		{"https://go.example.com:70000", "", "", ErrDomainPort},
		{"https://go.example.com:", "", "", ErrDomainPort},
		{"https://bücher.de", "", "", ErrDomainASCII},
		{"https://go example.com", "", "", ErrURLControl},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, h, err := ParseDomain(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil || d != tt.domain || h != tt.host {
				t.Fatalf("= %q, %q, %v; want %q, %q", d, h, err, tt.domain, tt.host)
			}
		})
	}
}

func TestHostName(t *testing.T) {
	tests := []struct{ host, want string }{
		{"sho.rt", "sho.rt"},
		{"SHO.RT:8443", "sho.rt"},
		{"sho.rt.:80", "sho.rt"},
		{"sho.rt.", "sho.rt"},
		{"[::1]", "[::1]"},
		{"[::1]:8080", "[::1]"},
		{"127.0.0.1:8080", "127.0.0.1"},
	}
	for _, tt := range tests {
		if got := HostName(tt.host); got != tt.want {
			t.Errorf("HostName(%q) = %q, want %q", tt.host, got, tt.want)
		}
	}
}
