package hostname

import "testing"

func TestKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"example.com", "example.com"},
		{"EXAMPLE.com.", "example.com"},
		{"example.com:443", "example.com"},
		{"example.com:80", "example.com"},
		{"example.com.:443", "example.com"},
		{"example.com:8080", "example.com:8080"},
		{"ｅｘａｍｐｌｅ.com", "example.com"},              // full-width letters
		{"ｅｘａｍｐｌｅ．ｃｏｍ", "example.com"},              // full-width stop too
		{"example。com", "example.com"},              // ideographic full stop
		{"ＥＸＡＭＰＬＥ.com:443", "example.com"},          // full-width capitals
		{"bücher.example", "xn--bcher-kva.example"}, // Unicode → punycode
		{"BÜCHER.example", "xn--bcher-kva.example"}, // case first
		{"xn--bcher-kva.example", "xn--bcher-kva.example"},
		{"go_x.example", "go_x.example"}, // browsers accept '_'
		{"[::1]:443", "[::1]"},
		{"[::1]:8080", "[::1]:8080"},
		{"[2001:DB8::1]", "[2001:db8::1]"},
		{"127.0.0.1:80", "127.0.0.1"},
	} {
		if got := Key(tc.in); got != tc.want {
			t.Errorf("Key(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A URL parser accepts a port as any run of digits, and an empty one;
// browsers read it as a number, so every spelling of the default port is
// the default port.
func TestKeyPortSpellings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"example.com:", "example.com"},
		{"example.com:0443", "example.com"},
		{"example.com:00080", "example.com"},
		{"example.com:000000000000000000000443", "example.com"},
		{"EXAMPLE.com.:0443", "example.com"},
		{"example.com:08080", "example.com:8080"},
		{"example.com:0", "example.com:0"},
		{"example.com:000", "example.com:0"},
		{"[::1]:", "[::1]"},
		{"[::1]:0443", "[::1]"},
		{"[::1]:08080", "[::1]:8080"},
	} {
		if got := Key(tc.in); got != tc.want {
			t.Errorf("Key(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNameOf(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"go.example.com:8443", "go.example.com"},
		{"ＧＯ.example.com.:8443", "go.example.com"},
		{"[::1]:80", "[::1]"},
	} {
		if got := NameOf(tc.in); got != tc.want {
			t.Errorf("NameOf(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
