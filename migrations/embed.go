// Package migrations embeds the plain, numbered SQL migrations of both
// stores. Files are named NNNN_description.sql and applied in numeric order;
// each is applied once and recorded in the store's own migrations table.
package migrations

import "embed"

// Postgres holds migrations/postgres/*.sql.
//
//go:embed postgres/*.sql
var Postgres embed.FS

// ClickHouse holds migrations/clickhouse/*.sql. ClickHouse has no
// transactions, so every statement there must be idempotent (IF NOT EXISTS).
//
//go:embed clickhouse/*.sql
var ClickHouse embed.FS
