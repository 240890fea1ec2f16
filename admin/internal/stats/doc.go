// Package stats is the only admin code that reads clicks from ClickHouse:
// the numbers of the single-link and single-QR responses, the chart
// extension's time series, the ingest freshness, and the roll-up that
// copies each link's and QR code's human click count into PostgreSQL
// (links.clicks, qr_codes.scans) for list pages and order=click.
//
// Every read uses the aggregate tables of migrations/clickhouse/0002-0005,
// never a scan of the raw clicks table, so a link's stats cost the same at
// ten clicks and at a hundred million. Only ClassHuman visits count towards
// clicks, uniqueClicks and the breakdowns; bots, previews and prefetches are
// reported apart.
package stats
