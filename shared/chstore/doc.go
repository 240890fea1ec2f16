// Package chstore is kurz's access to ClickHouse: opening a connection with
// timeouts that suit ClickHouse 18.16 as well as current releases, running
// the embedded migrations with an own runner (goose's ClickHouse dialect
// hangs on 18.16), inserting click blocks, and reading a link's or QR
// code's click summary (ReadSummary: the admin's single-link stats and the
// edge's public stats page share it). Only this package, the edge's
// click pipeline and the admin's stats import clickhouse-go.
package chstore
