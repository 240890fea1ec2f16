package config

import (
	"strings"
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantErr bool
		check   func(t *testing.T, c *Config)
	}{
		{name: "defaults", env: nil, check: func(t *testing.T, c *Config) {
			if c.EdgeAddr != ":8080" || c.AdminAddr != ":8081" || c.BaseURL != "http://localhost:8080" || c.BaseHost != "localhost:8080" {
				t.Errorf("defaults: %+v", c)
			}
			if c.ClickFlushEvery != 5*time.Second || c.AnonRateLimit != 120 {
				t.Errorf("flush %v anon %d", c.ClickFlushEvery, c.AnonRateLimit)
			}
		}},
		{name: "base url normalised", env: map[string]string{"KURZ_BASE_URL": "https://Sho.RT/"}, check: func(t *testing.T, c *Config) {
			if c.BaseURL != "https://sho.rt" || c.BaseHost != "sho.rt" {
				t.Errorf("got %q %q", c.BaseURL, c.BaseHost)
			}
		}},
		{name: "base url with path", env: map[string]string{"KURZ_BASE_URL": "https://sho.rt/x"}, wantErr: true},
		{name: "base url not http", env: map[string]string{"KURZ_BASE_URL": "ftp://sho.rt"}, wantErr: true},
		{name: "dashboard", env: map[string]string{"KURZ_DASHBOARD_ADDR": " :8082 ", "KURZ_DASHBOARD_URL": "https://app.example.com/"}, check: func(t *testing.T, c *Config) {
			if c.DashboardAddr != ":8082" || c.DashboardURL != "https://app.example.com" {
				t.Errorf("got %q %q", c.DashboardAddr, c.DashboardURL)
			}
		}},
		{name: "dashboard url with path", env: map[string]string{"KURZ_DASHBOARD_URL": "https://app.example.com/x"}, wantErr: true},
		{name: "dns server", env: map[string]string{"KURZ_DNS_SERVER": " 192.0.2.53:53 "}, check: func(t *testing.T, c *Config) {
			if c.DNSServer != "192.0.2.53:53" {
				t.Errorf("DNSServer %q", c.DNSServer)
			}
		}},
		{name: "dns server without port", env: map[string]string{"KURZ_DNS_SERVER": "192.0.2.53"}, wantErr: true},
		{name: "dns server port not a number", env: map[string]string{"KURZ_DNS_SERVER": "192.0.2.53:dns"}, wantErr: true},
		{name: "dashboard url not http", env: map[string]string{"KURZ_DASHBOARD_URL": "app.example.com"}, wantErr: true},
		{name: "proxies", env: map[string]string{"KURZ_TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1,::1"}, check: func(t *testing.T, c *Config) {
			if len(c.TrustedProxies) != 3 || c.TrustedProxies[1].Bits() != 32 || c.TrustedProxies[2].Bits() != 128 {
				t.Errorf("got %v", c.TrustedProxies)
			}
		}},
		{name: "cors origins", env: map[string]string{"KURZ_CORS_ORIGINS": "https://App.Example.com, http://localhost:3000/ ,"}, check: func(t *testing.T, c *Config) {
			if len(c.CORSOrigins) != 2 || c.CORSOrigins[0] != "https://app.example.com" || c.CORSOrigins[1] != "http://localhost:3000" {
				t.Errorf("got %q", c.CORSOrigins)
			}
		}},
		{name: "cors default ports", env: map[string]string{"KURZ_CORS_ORIGINS": "https://a.example:443,http://b.example:80,https://c.example:8443"}, check: func(t *testing.T, c *Config) {
			if len(c.CORSOrigins) != 3 || c.CORSOrigins[0] != "https://a.example" || c.CORSOrigins[1] != "http://b.example" || c.CORSOrigins[2] != "https://c.example:8443" {
				t.Errorf("got %q", c.CORSOrigins)
			}
		}},
		{name: "cors any", env: map[string]string{"KURZ_CORS_ORIGINS": "*"}, check: func(t *testing.T, c *Config) {
			if len(c.CORSOrigins) != 1 || c.CORSOrigins[0] != "*" {
				t.Errorf("got %q", c.CORSOrigins)
			}
		}},
		{name: "cors none by default", env: nil, check: func(t *testing.T, c *Config) {
			if len(c.CORSOrigins) != 0 {
				t.Errorf("got %q", c.CORSOrigins)
			}
		}},
		{name: "cors origin with path", env: map[string]string{"KURZ_CORS_ORIGINS": "https://app.example.com/x"}, wantErr: true},
		{name: "cors origin without scheme", env: map[string]string{"KURZ_CORS_ORIGINS": "app.example.com"}, wantErr: true},
		{name: "bad proxy", env: map[string]string{"KURZ_TRUSTED_PROXIES": "10.0.0.0/99"}, wantErr: true},
		{name: "bad duration", env: map[string]string{"KURZ_CLICK_FLUSH_INTERVAL": "soon"}, wantErr: true},
		{name: "negative duration", env: map[string]string{"KURZ_CLICK_FLUSH_INTERVAL": "-1s"}, wantErr: true},
		{name: "bad int", env: map[string]string{"KURZ_ANON_RATE_LIMIT": "many"}, wantErr: true},
		{name: "registration closed by default", env: nil, check: func(t *testing.T, c *Config) {
			if c.Registration != RegistrationClosed || c.RegistrationRateLimit != 5 {
				t.Errorf("registration %q limit %d", c.Registration, c.RegistrationRateLimit)
			}
		}},
		{name: "registration invite", env: map[string]string{"KURZ_REGISTRATION": " Invite ", "KURZ_REGISTRATION_RATE_LIMIT": "0"}, check: func(t *testing.T, c *Config) {
			if c.Registration != RegistrationInvite || c.RegistrationRateLimit != 0 {
				t.Errorf("registration %q limit %d", c.Registration, c.RegistrationRateLimit)
			}
		}},
		{name: "clickhouse one server by default", env: nil, check: func(t *testing.T, c *Config) {
			if c.ClickHouseCluster != "" || c.ClickHouseReplicated {
				t.Errorf("cluster %q replicated %v", c.ClickHouseCluster, c.ClickHouseReplicated)
			}
		}},
		{name: "clickhouse cluster", env: map[string]string{"KURZ_CLICKHOUSE_CLUSTER": " kurz ", "KURZ_CLICKHOUSE_REPLICATED": "1"}, check: func(t *testing.T, c *Config) {
			if c.ClickHouseCluster != "kurz" || !c.ClickHouseReplicated {
				t.Errorf("cluster %q replicated %v", c.ClickHouseCluster, c.ClickHouseReplicated)
			}
		}},
		{name: "clickhouse replicated not a flag", env: map[string]string{"KURZ_CLICKHOUSE_REPLICATED": "yes"}, wantErr: true},
		{name: "registration unknown mode", env: map[string]string{"KURZ_REGISTRATION": "yes"}, wantErr: true},
		{name: "registration bad limit", env: map[string]string{"KURZ_REGISTRATION_RATE_LIMIT": "-1"}, wantErr: true},
		{name: "poll symbols", env: map[string]string{"KURZ_PRICE_POLL_SYMBOLS": "aapl, msft,,"}, check: func(t *testing.T, c *Config) {
			if len(c.PricePollSymbols) != 2 || c.PricePollSymbols[0] != "AAPL" {
				t.Errorf("got %v", c.PricePollSymbols)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

// TestCheckSecret: without KURZ_SECRET (or with the development value) only
// an explicit development run (KURZ_DEV=1, set by make run/test/bench) may
// serve; Load itself succeeds, so CLI commands that never use the secret
// still run.
func TestCheckSecret(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		ok   bool
	}{
		{"unset", nil, false},
		{"blank", map[string]string{"KURZ_SECRET": "  "}, false},
		{"development value", map[string]string{"KURZ_SECRET": DevSecret}, false},
		{"unset, KURZ_DEV other than 1", map[string]string{"KURZ_DEV": "true"}, false},
		{"unset, KURZ_DEV=0", map[string]string{"KURZ_DEV": "0"}, false},
		{"unset, KURZ_DEV=1", map[string]string{"KURZ_DEV": "1"}, true},
		{"development value, KURZ_DEV=1", map[string]string{"KURZ_SECRET": DevSecret, "KURZ_DEV": " 1 "}, true},
		{"set", map[string]string{"KURZ_SECRET": strings.Repeat("s", MinSecretBytes)}, true},
		{"too short", map[string]string{"KURZ_SECRET": strings.Repeat("s", MinSecretBytes-1)}, false},
		{"trivially short", map[string]string{"KURZ_SECRET": "x"}, false},
		{"too short, KURZ_DEV=1", map[string]string{"KURZ_SECRET": "short", "KURZ_DEV": "1"}, true},
		{"set, KURZ_DEV=1", map[string]string{"KURZ_SECRET": strings.Repeat("s", MinSecretBytes), "KURZ_DEV": "1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(func(k string) string { return tt.env[k] })
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			err = c.CheckSecret()
			if (err == nil) != tt.ok {
				t.Fatalf("CheckSecret() = %v, want ok %v", err, tt.ok)
			}
			if err != nil && (!strings.Contains(err.Error(), "KURZ_SECRET") || !strings.Contains(err.Error(), "openssl rand")) {
				t.Fatalf("error does not name KURZ_SECRET: %v", err)
			}
		})
	}
}

// TestMetricsAddrs: the /metrics listeners default to loopback ports; a
// variable set to an empty value turns its listener off.
func TestMetricsAddrs(t *testing.T) {
	tests := []struct {
		name            string
		env             map[string]string
		wantEdge, wantA string
	}{
		{"unset", nil, DefaultEdgeMetricsAddr, DefaultAdminMetricsAddr},
		{"empty = off", map[string]string{"KURZ_EDGE_METRICS_ADDR": "", "KURZ_ADMIN_METRICS_ADDR": " "}, "", ""},
		{"set", map[string]string{"KURZ_EDGE_METRICS_ADDR": " 10.0.0.5:9101 ", "KURZ_ADMIN_METRICS_ADDR": ":9999"}, "10.0.0.5:9101", ":9999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadFrom(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if err != nil {
				t.Fatal(err)
			}
			if c.EdgeMetricsAddr != tt.wantEdge || c.AdminMetricsAddr != tt.wantA {
				t.Fatalf("edge %q admin %q, want %q %q", c.EdgeMetricsAddr, c.AdminMetricsAddr, tt.wantEdge, tt.wantA)
			}
		})
	}
}
