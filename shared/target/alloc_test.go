//go:build !race

package target

import "testing"

func TestZeroAllocs(t *testing.T) {
	set := benchSet(t)
	// Country CH and device iPhone fall through geo and device to language,
	// the most expensive path.
	facts := Facts{Country: [2]byte{'C', 'H'}, Device: DeviceOf(benchUA), AcceptLanguage: benchLang}
	if url, ok := set.Match(&facts); !ok || url != "https://example.com/de" {
		t.Fatalf("Match = %q, %v", url, ok)
	}
	tests := []struct {
		name string
		f    func()
	}{
		{"DeviceOf", func() { _ = DeviceOf(benchUA) }},
		{"ClassOf", func() { _ = ClassOf(benchUA, benchMethod, benchPurpose) }},
		{"Inspect", func() { _ = Inspect(benchUA, benchMethod, nil) }},
		{"IsSocialPreview", func() { _ = IsSocialPreview(benchUA) }},
		{"Match", func() { _, _ = set.Match(&facts) }},
		{"IsCountry", func() { _ = IsCountry(facts.Country) }},
	}
	for _, tt := range tests {
		if n := testing.AllocsPerRun(200, tt.f); n != 0 {
			t.Errorf("%s: %v allocs per run, want 0", tt.name, n)
		}
	}
}
