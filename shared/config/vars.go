package config

// Var is one environment variable Load reads.
type Var struct {
	Name string
	// Secret is true when the value is, or may carry, a credential: a
	// key, or a DSN with a password in it. Deployment files take such a
	// variable from a secret store (an env file, a Kubernetes Secret),
	// never from plain configuration (deploy/).
	Secret bool
}

// Variables lists every environment variable Load reads, in the order of
// README.md's configuration table. It is the one list the deployment
// files and the README are checked against (deploy/deploy_test.go); a
// test of this package checks that Load reads exactly these.
func Variables() []Var {
	return []Var{
		{Name: "KURZ_DATABASE_URL", Secret: true},
		{Name: "KURZ_DATABASE_READ_URL", Secret: true},
		{Name: "KURZ_CLICKHOUSE_URL", Secret: true},
		{Name: "KURZ_CLICKHOUSE_CLUSTER"},
		{Name: "KURZ_CLICKHOUSE_REPLICATED"},
		{Name: "KURZ_EDGE_ADDR"},
		{Name: "KURZ_ADMIN_ADDR"},
		{Name: "KURZ_PRICE_ADDR"},
		{Name: "KURZ_DASHBOARD_ADDR"},
		{Name: "KURZ_DASHBOARD_URL"},
		{Name: "KURZ_DOMAIN_DNS"},
		{Name: "KURZ_DNS_SERVER"},
		{Name: "KURZ_BASE_URL"},
		{Name: "KURZ_COUNTRY_HEADER"},
		{Name: "KURZ_GEOIP_DB"},
		{Name: "KURZ_TRUSTED_PROXIES"},
		{Name: "KURZ_CLICK_FLUSH_INTERVAL"},
		{Name: "KURZ_CORS_ORIGINS"},
		{Name: "KURZ_ANON_RATE_LIMIT"},
		{Name: "KURZ_REGISTRATION"},
		{Name: "KURZ_REGISTRATION_RATE_LIMIT"},
		{Name: "KURZ_SPOOL_DIR"},
		{Name: "KURZ_SPOOL_MAX_BYTES"},
		{Name: "KURZ_SECRET", Secret: true},
		{Name: "KURZ_DEV"},
		{Name: "KURZ_CACHE_MAX_BYTES"},
		{Name: "KURZ_WARM_LINKS"},
		{Name: "KURZ_PPROF_ADDR"},
		{Name: "KURZ_EDGE_METRICS_ADDR"},
		{Name: "KURZ_ADMIN_METRICS_ADDR"},
		{Name: "KURZ_PRICE_STALE_AFTER"},
		{Name: "KURZ_PRICE_POLL_URL"},
		{Name: "KURZ_PRICE_POLL_SYMBOLS"},
		{Name: "KURZ_PRICE_POLL_INTERVAL"},
		{Name: "KURZ_PRICE_POLL_TIMEOUT"},
		{Name: "KURZ_PRICE_POLL_PRICE_FIELD"},
		{Name: "KURZ_PRICE_POLL_CURRENCY_FIELD"},
		{Name: "KURZ_PRICE_POLL_TIME_FIELD"},
		{Name: "KURZ_LOG_LEVEL"},
	}
}
