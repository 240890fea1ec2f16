// Package config reads kurz's settings from the environment. Every setting
// has a KURZ_* variable, documented with its default in README.md; both
// processes read the same struct and use the parts they need.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is the whole configuration of both processes.
type Config struct {
	DatabaseURL       string         // KURZ_DATABASE_URL
	DatabaseReadURL   string         // KURZ_DATABASE_READ_URL (optional): a read replica for the edge's loads and warm-up
	ClickHouseURL     string         // KURZ_CLICKHOUSE_URL
	EdgeAddr          string         // KURZ_EDGE_ADDR
	AdminAddr         string         // KURZ_ADMIN_ADDR
	PriceAddr         string         // KURZ_PRICE_ADDR (optional)
	DashboardAddr     string         // KURZ_DASHBOARD_ADDR (optional): a listener serving only the dashboard
	DashboardURL      string         // KURZ_DASHBOARD_URL: the dashboard's public base, for reset links ("" = derived from the listen address)
	DomainDNS         string         // KURZ_DOMAIN_DNS (optional): the DNS record users point branded domains at, e.g. "CNAME edge.example.net"
	DNSServer         string         // KURZ_DNS_SERVER (optional): host:port of the DNS server the dashboard's domain check asks; the system's resolver without it
	BaseURL           string         // KURZ_BASE_URL, without trailing slash
	BaseHost          string         // host[:port] of BaseURL, lower case
	CountryHeader     string         // KURZ_COUNTRY_HEADER (optional)
	GeoIPDB           string         // KURZ_GEOIP_DB (optional)
	TrustedProxies    []netip.Prefix // KURZ_TRUSTED_PROXIES
	ClickFlushEvery   time.Duration  // KURZ_CLICK_FLUSH_INTERVAL
	AnonRateLimit     int            // KURZ_ANON_RATE_LIMIT, requests/minute per IP without a valid key
	SpoolDir          string         // KURZ_SPOOL_DIR
	SpoolMaxBytes     int64          // KURZ_SPOOL_MAX_BYTES
	Secret            string         // KURZ_SECRET: keys cookies and visitor hashes
	Dev               bool           // KURZ_DEV=1: a development run (make run/test/bench); allows DevSecret
	CacheMaxBytes     int64          // KURZ_CACHE_MAX_BYTES: edge link cache budget
	PriceStaleAfter   time.Duration  // KURZ_PRICE_STALE_AFTER
	PricePollURL      string         // KURZ_PRICE_POLL_URL (optional upstream template)
	PricePollSymbols  []string       // KURZ_PRICE_POLL_SYMBOLS
	PricePollInterval time.Duration  // KURZ_PRICE_POLL_INTERVAL
	LogLevel          string         // KURZ_LOG_LEVEL: debug|info|warn|error
	PprofAddr         string         // KURZ_PPROF_ADDR: loopback host:port of the edge's pprof listener ('' = off)
	EdgeMetricsAddr   string         // KURZ_EDGE_METRICS_ADDR: the edge's /metrics listener (set and empty = off)
	AdminMetricsAddr  string         // KURZ_ADMIN_METRICS_ADDR: the admin's /metrics listener (set and empty = off)
	WarmLinks         int64          // KURZ_WARM_LINKS: links the edge bulk-loads at start (0 = none)
	CORSOrigins       []string       // KURZ_CORS_ORIGINS: browser origins allowed to call the API ("*" = any)

	// Self-service sign-up (POST /api/register): RegistrationOpen,
	// RegistrationInvite or RegistrationClosed (anything else, including
	// "", is treated as closed), and the attempts allowed per client IP
	// (IPv6: per /64) and hour; 0 = unlimited.
	Registration          string // KURZ_REGISTRATION
	RegistrationRateLimit int    // KURZ_REGISTRATION_RATE_LIMIT

	// ClickHouse cluster layout (docs/scaling.md, "ClickHouse cluster"):
	// the remote_servers name of the cluster ("" = one server), and
	// whether its local tables are ReplicatedMergeTree. Checked where a
	// connection is opened (chstore.Cluster).
	ClickHouseCluster    string // KURZ_CLICKHOUSE_CLUSTER
	ClickHouseReplicated bool   // KURZ_CLICKHOUSE_REPLICATED=1

	// Price poller: per-request timeout and the dot-separated JSON paths of
	// the quote's parts in the upstream response (time "" = none sent).
	PricePollTimeout       time.Duration // KURZ_PRICE_POLL_TIMEOUT
	PricePollPriceField    string        // KURZ_PRICE_POLL_PRICE_FIELD
	PricePollCurrencyField string        // KURZ_PRICE_POLL_CURRENCY_FIELD
	PricePollTimeField     string        // KURZ_PRICE_POLL_TIME_FIELD ("-" = none)
}

// Defaults used when a variable is unset.
const (
	DefaultDatabaseURL   = "postgres://postgres@127.0.0.1:55432/kurz?sslmode=disable"
	DefaultClickHouseURL = "clickhouse://127.0.0.1:59000/default"
	DefaultBaseURL       = "http://localhost:8080"
	DefaultEdgeAddr      = ":8080"
	DefaultAdminAddr     = ":8081"
	// Registration modes of KURZ_REGISTRATION. Closed is the default so a
	// fresh production install does not hand out accounts to anyone.
	RegistrationOpen   = "open"
	RegistrationInvite = "invite"
	RegistrationClosed = "closed"
	// DevSecret is the KURZ_SECRET of an unset variable. Only a development
	// run (KURZ_DEV=1) may serve with it: see CheckSecret.
	DevSecret = "kurz-dev-secret-change-me"
	// The /metrics listeners' defaults: loopback only, so the series are
	// not published by accident; set the variable to an empty value to
	// turn a listener off.
	DefaultEdgeMetricsAddr  = "127.0.0.1:9101"
	DefaultAdminMetricsAddr = "127.0.0.1:9102"
)

// Load reads the configuration from the environment.
func Load() (*Config, error) { return loadFrom(os.LookupEnv) }

// LoadFrom reads the configuration from get instead of the environment,
// "" meaning unset: the settings a deployment file gives a process
// (deploy/).
func LoadFrom(get func(name string) string) (*Config, error) { return load(get) }

// load reads the configuration through get, where "" means unset.
func load(get func(string) string) (*Config, error) {
	return loadFrom(func(k string) (string, bool) {
		v := get(k)
		return v, v != ""
	})
}

// loadFrom reads the configuration through lookup, which tells an unset
// variable from an empty one (the metrics listeners are off when empty).
func loadFrom(lookup func(string) (string, bool)) (*Config, error) {
	get := func(k string) string { v, _ := lookup(k); return v }
	c := &Config{
		DatabaseURL:     or(get("KURZ_DATABASE_URL"), DefaultDatabaseURL),
		DatabaseReadURL: strings.TrimSpace(get("KURZ_DATABASE_READ_URL")),
		ClickHouseURL:   or(get("KURZ_CLICKHOUSE_URL"), DefaultClickHouseURL),
		EdgeAddr:        or(get("KURZ_EDGE_ADDR"), DefaultEdgeAddr),
		AdminAddr:       or(get("KURZ_ADMIN_ADDR"), DefaultAdminAddr),
		PriceAddr:       get("KURZ_PRICE_ADDR"),
		DashboardAddr:   strings.TrimSpace(get("KURZ_DASHBOARD_ADDR")),
		DashboardURL:    strings.TrimSuffix(strings.TrimSpace(get("KURZ_DASHBOARD_URL")), "/"),
		DomainDNS:       strings.TrimSpace(get("KURZ_DOMAIN_DNS")),
		DNSServer:       strings.TrimSpace(get("KURZ_DNS_SERVER")),
		CountryHeader:   strings.TrimSpace(get("KURZ_COUNTRY_HEADER")),
		GeoIPDB:         get("KURZ_GEOIP_DB"),
		SpoolDir:        or(get("KURZ_SPOOL_DIR"), ".run/spool"),
		Secret:          or(get("KURZ_SECRET"), DevSecret),
		Dev:             strings.TrimSpace(get("KURZ_DEV")) == "1",
		PricePollURL:    get("KURZ_PRICE_POLL_URL"),
		LogLevel:        or(get("KURZ_LOG_LEVEL"), "info"),
		PprofAddr:       strings.TrimSpace(get("KURZ_PPROF_ADDR")),
	}
	c.EdgeMetricsAddr = unsetOr(lookup, "KURZ_EDGE_METRICS_ADDR", DefaultEdgeMetricsAddr)
	c.AdminMetricsAddr = unsetOr(lookup, "KURZ_ADMIN_METRICS_ADDR", DefaultAdminMetricsAddr)
	c.PricePollPriceField = or(get("KURZ_PRICE_POLL_PRICE_FIELD"), "price")
	c.PricePollCurrencyField = or(get("KURZ_PRICE_POLL_CURRENCY_FIELD"), "currency")
	if c.PricePollTimeField = or(get("KURZ_PRICE_POLL_TIME_FIELD"), "timestamp"); c.PricePollTimeField == "-" {
		c.PricePollTimeField = ""
	}
	c.ClickHouseCluster = strings.TrimSpace(get("KURZ_CLICKHOUSE_CLUSTER"))
	var err error
	if c.ClickHouseReplicated, err = flag(get("KURZ_CLICKHOUSE_REPLICATED")); err != nil {
		return nil, fmt.Errorf("KURZ_CLICKHOUSE_REPLICATED: %w", err)
	}
	if c.BaseURL, c.BaseHost, err = parseBase(or(get("KURZ_BASE_URL"), DefaultBaseURL)); err != nil {
		return nil, err
	}
	if v := c.DashboardURL; v != "" {
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("KURZ_DASHBOARD_URL: want an absolute http(s) URL without a path, such as https://app.example.com, got %q", v)
		}
	}
	if v := c.DNSServer; v != "" {
		if h, port, err := net.SplitHostPort(v); err != nil || h == "" || !validPort(port) {
			return nil, fmt.Errorf("KURZ_DNS_SERVER: want host:port, such as 192.0.2.53:53, got %q", v)
		}
	}
	if c.TrustedProxies, err = parsePrefixes(get("KURZ_TRUSTED_PROXIES")); err != nil {
		return nil, err
	}
	if c.CORSOrigins, err = parseOrigins(get("KURZ_CORS_ORIGINS")); err != nil {
		return nil, err
	}
	durations := []struct {
		name string
		dst  *time.Duration
		def  time.Duration
	}{
		{"KURZ_CLICK_FLUSH_INTERVAL", &c.ClickFlushEvery, 5 * time.Second},
		{"KURZ_PRICE_STALE_AFTER", &c.PriceStaleAfter, 24 * time.Hour},
		{"KURZ_PRICE_POLL_INTERVAL", &c.PricePollInterval, time.Minute},
		{"KURZ_PRICE_POLL_TIMEOUT", &c.PricePollTimeout, 10 * time.Second},
	}
	for _, d := range durations {
		if *d.dst, err = duration(get(d.name), d.def); err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
	}
	ints := []struct {
		name string
		dst  *int64
		def  int64
	}{
		{"KURZ_SPOOL_MAX_BYTES", &c.SpoolMaxBytes, 1 << 30},
		{"KURZ_CACHE_MAX_BYTES", &c.CacheMaxBytes, 256 << 20},
		{"KURZ_WARM_LINKS", &c.WarmLinks, 1_000_000},
	}
	for _, n := range ints {
		if *n.dst, err = integer(get(n.name), n.def); err != nil {
			return nil, fmt.Errorf("%s: %w", n.name, err)
		}
	}
	anon, err := integer(get("KURZ_ANON_RATE_LIMIT"), 120)
	if err != nil {
		return nil, fmt.Errorf("KURZ_ANON_RATE_LIMIT: %w", err)
	}
	c.AnonRateLimit = int(anon)
	if c.Registration, err = registration(get("KURZ_REGISTRATION")); err != nil {
		return nil, err
	}
	reg, err := integer(get("KURZ_REGISTRATION_RATE_LIMIT"), 5)
	if err != nil {
		return nil, fmt.Errorf("KURZ_REGISTRATION_RATE_LIMIT: %w", err)
	}
	c.RegistrationRateLimit = int(reg)
	for _, s := range strings.Split(get("KURZ_PRICE_POLL_SYMBOLS"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			c.PricePollSymbols = append(c.PricePollSymbols, strings.ToUpper(s))
		}
	}
	return c, nil
}

// CheckSecret refuses to serve with the development secret (KURZ_SECRET
// unset or set to DevSecret) unless KURZ_DEV=1 says this is a development
// run: with a publicly known key anyone can forge password cookies and
// link visitor hashes across days. It is checked by `serve` only, so CLI
// commands that never use the secret (migrate, user create, …) still run.
//
// Outside a development run the secret must also be at least
// MinSecretBytes long: a short one can be found by guessing, offline, from
// a single password cookie.
func (c *Config) CheckSecret() error {
	switch {
	case c.Dev:
		return nil
	case c.Secret == DevSecret:
		return errors.New("KURZ_SECRET is not set (or is the development value): set it to a long random string, " +
			"e.g. `openssl rand -base64 48`; only a development run may go without it, with KURZ_DEV=1")
	case len(c.Secret) < MinSecretBytes:
		return fmt.Errorf("KURZ_SECRET is too short (%d bytes, at least %d needed): set it to a long random string, "+
			"e.g. `openssl rand -base64 48`", len(c.Secret), MinSecretBytes)
	}
	return nil
}

// MinSecretBytes is the shortest KURZ_SECRET a production run accepts.
const MinSecretBytes = 32

func or(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return strings.TrimSpace(v)
}

// unsetOr is the trimmed value of variable k, def when k is unset; a
// variable set to an empty value stays empty.
func unsetOr(lookup func(string) (string, bool), k, def string) string {
	v, ok := lookup(k)
	if !ok {
		return def
	}
	return strings.TrimSpace(v)
}

func duration(v string, def time.Duration) (time.Duration, error) {
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, fmt.Errorf("must be positive, got %s", v)
	}
	return d, nil
}

func integer(v string, def int64) (int64, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not an integer: %q", v)
	}
	if n < 0 {
		return 0, fmt.Errorf("must not be negative, got %d", n)
	}
	return n, nil
}

// flag reads a switch: "1" on, "" or "0" off.
func flag(v string) (bool, error) {
	switch strings.TrimSpace(v) {
	case "", "0":
		return false, nil
	case "1":
		return true, nil
	}
	return false, fmt.Errorf("want 1 or 0, got %q", v)
}

func registration(v string) (string, error) {
	switch m := strings.ToLower(or(v, RegistrationClosed)); m {
	case RegistrationOpen, RegistrationInvite, RegistrationClosed:
		return m, nil
	}
	return "", fmt.Errorf("KURZ_REGISTRATION: want open, invite or closed, got %q", v)
}

// parseBase validates KURZ_BASE_URL and returns it without a trailing slash,
// plus its lower-case host[:port].
func parseBase(raw string) (base, host string, err error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("KURZ_BASE_URL: want an absolute http(s) URL, got %q", raw)
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" {
		return "", "", fmt.Errorf("KURZ_BASE_URL: must not have a path, query or fragment: %q", raw)
	}
	host = strings.ToLower(u.Host)
	return u.Scheme + "://" + host, host, nil
}

func parsePrefixes(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, fmt.Errorf("KURZ_TRUSTED_PROXIES: %q: %w", s, err)
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("KURZ_TRUSTED_PROXIES: %q: %w", s, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// parseOrigins reads a comma-separated list of browser origins
// (scheme://host[:port], compared as the browser sends them: lower case,
// no path) or "*".
func parseOrigins(v string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(v, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o == "*" {
			out = append(out, o)
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, fmt.Errorf("KURZ_CORS_ORIGINS: %q is not an origin such as https://app.example.com (or *)", o)
		}
		// Browsers send an origin without its scheme's default port.
		host := strings.ToLower(u.Host)
		if u.Port() == map[string]string{"http": "80", "https": "443"}[u.Scheme] {
			host = strings.ToLower(u.Hostname())
			if strings.Contains(host, ":") {
				host = "[" + host + "]"
			}
		}
		out = append(out, u.Scheme+"://"+host)
	}
	return out, nil
}

// validPort reports whether p is a port number, 1 to 65535.
func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}
