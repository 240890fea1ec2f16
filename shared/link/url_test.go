package link

import (
	"errors"
	"testing"
)

func TestValidURL(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"https://example.com/path?q=1#x", nil},
		{"  http://example.com  ", nil},
		{"HTTPS://Example.com", nil},
		{"http://127.0.0.1:8080/x", nil},
		{"http://[2001:db8::1]/", nil},
		{"", ErrURLRequired},
		{"example.com", ErrURLScheme},
		{"javascript:alert(1)", ErrURLScheme},
		{"JaVaScRiPt:alert(1)", ErrURLScheme},
		{"data:text/html,<script>", ErrURLScheme},
		{"file:///etc/passwd", ErrURLScheme},
		{"vbscript:msgbox", ErrURLScheme},
		{"ftp://example.com", ErrURLScheme},
		{"http:example.com", ErrURLScheme},
		{"http://", ErrURLHost},
		{"http://exa mple.com", ErrURLControl},
		{"http://example.com/\r\nSet-Cookie:x", ErrURLControl},
		{"http://user:pw@example.com", ErrURLUserinfo},
		{"http://bad..host/", ErrURLHost},
		{"http://ex<ample.com/", ErrURLHost},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ValidURL(tt.in)
			if !errors.Is(err, tt.want) {
				t.Errorf("ValidURL(%q) = %v, want %v", tt.in, err, tt.want)
			}
		})
	}
}
