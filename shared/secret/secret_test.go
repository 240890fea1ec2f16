package secret

import (
	"bytes"
	"strings"
	"testing"
)

func TestAPIKey(t *testing.T) {
	k1, h1 := NewAPIKey()
	k2, h2 := NewAPIKey()
	if k1 == k2 || bytes.Equal(h1, h2) {
		t.Fatal("two keys are equal")
	}
	if !strings.HasPrefix(k1, KeyPrefix) || len(k1) != len(KeyPrefix)+keyChars {
		t.Fatalf("bad key form %q", k1)
	}
	if !bytes.Equal(HashAPIKey(k1), h1) {
		t.Fatal("hash not reproducible")
	}
}

func TestPassword(t *testing.T) {
	h, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := HashPassword("correct horse")
	if h == h2 {
		t.Fatal("same hash twice: salt missing")
	}
	tests := []struct {
		name, hash, pw string
		want           bool
	}{
		{"right", h, "correct horse", true},
		{"wrong", h, "correct horsE", false},
		{"empty pw", h, "", false},
		{"empty hash", "", "correct horse", false},
		{"garbage", "$argon2id$v=19$m=x$y$z", "correct horse", false},
		{"other algo", strings.Replace(h, "argon2id", "argon2i", 1), "correct horse", false},
		{"huge memory refused", strings.Replace(h, "m=19456", "m=99999999", 1), "correct horse", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := VerifyPassword(tt.hash, tt.pw); got != tt.want {
				t.Errorf("VerifyPassword = %v, want %v", got, tt.want)
			}
		})
	}
}
