package chstore

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Timeouts applied when the DSN does not set dial_timeout / read_timeout.
const (
	DefaultDialTimeout = 5 * time.Second
	// DefaultReadTimeout bounds every server round trip. The driver's default
	// of 300 s turns a hung statement (an inline INSERT … VALUES on 18.16, a
	// dead server behind a half-open socket) into a five-minute stall.
	DefaultReadTimeout = 30 * time.Second
)

// Open connects to the ClickHouse named by a native-protocol DSN such as
// clickhouse://127.0.0.1:9000/kurz and pings it. LZ4 compression is used
// unless the DSN chooses otherwise.
func Open(ctx context.Context, dsn string) (driver.Conn, error) {
	opts, err := Options(dsn)
	if err != nil {
		return nil, err
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("open clickhouse %s: %w", Redact(dsn), err)
	}
	if err := conn.Ping(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("ping clickhouse %s: %w", Redact(dsn), err)
	}
	return conn, nil
}

// Options parses dsn and fills in kurz's defaults.
func Options(dsn string) (*clickhouse.Options, error) {
	opts, err := clickhouse.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse clickhouse dsn %s: %w", Redact(dsn), err)
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = DefaultDialTimeout
	}
	if opts.ReadTimeout == 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	if opts.Compression == nil {
		opts.Compression = &clickhouse.Compression{Method: clickhouse.CompressionLZ4}
	}
	return opts, nil
}

// Redact returns dsn without its password, for logs and errors.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparsable dsn)"
	}
	return u.Redacted()
}

// WithDatabase returns dsn pointing at database db instead.
func WithDatabase(dsn, db string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("parse clickhouse dsn: %w", err)
	}
	u.Path = "/" + db
	return u.String(), nil
}
