// Package stats is the only admin code that reads clicks from ClickHouse:
// the numbers of the single-link and single-QR responses, the chart
// extension's time series, the ingest freshness, the numbers of list pages
// (one query per page, from the table the single responses read) and the
// ranking that orders links by clicks. Click counts live in ClickHouse
// only: there is no copy in PostgreSQL to keep in step.
//
// Every read uses the aggregate tables of migrations/clickhouse/0002-0005,
// never a scan of the raw clicks table, so a link's stats cost the same at
// ten clicks and at a hundred million. Only ClassHuman visits count towards
// clicks, uniqueClicks and the breakdowns; bots, previews and prefetches are
// reported apart.
package stats
