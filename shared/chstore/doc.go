// Package chstore is kurz's access to ClickHouse: opening a connection with
// timeouts that suit ClickHouse 18.16 as well as current releases, running
// the embedded migrations with an own runner (goose's ClickHouse dialect
// hangs on 18.16), and inserting click blocks. Only this package, the edge's
// click pipeline and the admin's stats import clickhouse-go.
package chstore
