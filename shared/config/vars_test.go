package config

import (
	"slices"
	"testing"
)

// TestVariablesAreWhatLoadReads keeps Variables honest: Load asks the
// environment for exactly the names it lists, each once, whatever the
// values (defaults, or every variable set to something valid).
func TestVariablesAreWhatLoadReads(t *testing.T) {
	var want []string
	for _, v := range Variables() {
		want = append(want, v.Name)
	}
	valid := map[string]string{
		"KURZ_BASE_URL": "https://sho.rt", "KURZ_DASHBOARD_URL": "https://app.example.com",
		"KURZ_TRUSTED_PROXIES": "10.0.0.0/8", "KURZ_CORS_ORIGINS": "*", "KURZ_REGISTRATION": "open",
		"KURZ_CLICK_FLUSH_INTERVAL": "2s", "KURZ_PRICE_STALE_AFTER": "1h", "KURZ_PRICE_POLL_INTERVAL": "1m",
		"KURZ_PRICE_POLL_TIMEOUT": "5s", "KURZ_SPOOL_MAX_BYTES": "1", "KURZ_CACHE_MAX_BYTES": "1",
		"KURZ_WARM_LINKS": "1", "KURZ_ANON_RATE_LIMIT": "1", "KURZ_REGISTRATION_RATE_LIMIT": "1",
		"KURZ_CLICKHOUSE_REPLICATED": "1", "KURZ_DNS_SERVER": "127.0.0.1:53",
	}
	for _, env := range []struct {
		name string
		get  func(string) string
	}{
		{"unset", func(string) string { return "" }},
		{"set", func(n string) string {
			if v, ok := valid[n]; ok {
				return v
			}
			return "x"
		}},
	} {
		t.Run(env.name, func(t *testing.T) {
			var read []string
			if _, err := load(func(n string) string { read = append(read, n); return env.get(n) }); err != nil {
				t.Fatal(err)
			}
			if got, w := sorted(read), sorted(want); !slices.Equal(got, w) {
				t.Errorf("Load reads %q\nVariables lists %q", got, w)
			}
		})
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
