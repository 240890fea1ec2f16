package link

import "testing"

func TestQRURLs(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"image", QRImageURL("https://sho.rt", "Ab3dE9xZ"), "https://sho.rt/qr/Ab3dE9xZ"},
		{"scan", QRScanURL("https://sho.rt", "Ab3dE9xZ"), "https://sho.rt/q/Ab3dE9xZ"},
		{"image with port", QRImageURL("http://localhost:8080", "x"), "http://localhost:8080/qr/x"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	// The scan path must be one the edge routes, and the code one it
	// accepts, or every printed link code would 404.
	if !IsAliasSyntax("Ab3dE9xZ") || QRCodeLen > MaxCustomAliasLen {
		t.Error("QR codes must have alias syntax for the edge's /q/{code} and /qr/{code} routes")
	}
}
