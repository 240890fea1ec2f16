package chtest

import (
	"context"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Merges holds off ClickHouse's background merges of a test database's
// tables, for tests that count what a read finds changed in the parts:
// a merge at a moment of the server's choosing would change them.
type Merges struct {
	t      testing.TB
	conn   driver.Conn
	tables []string
}

// StopMerges stops the background merges of tables (of conn's database)
// until the test ends.
func StopMerges(t testing.TB, conn driver.Conn, tables ...string) *Merges {
	t.Helper()
	m := &Merges{t: t, conn: conn, tables: tables}
	m.exec("SYSTEM STOP MERGES ")
	return m
}

// Optimize merges table's parts into one now (OPTIMIZE … FINAL, which a
// stopped table refuses), then stops its merges again.
func (m *Merges) Optimize(table string) {
	m.t.Helper()
	ctx := context.Background()
	for _, stmt := range []string{"SYSTEM START MERGES " + table, "OPTIMIZE TABLE " + table + " FINAL", "SYSTEM STOP MERGES " + table} {
		if err := m.conn.Exec(ctx, stmt); err != nil {
			m.t.Fatalf("%s: %v", stmt, err)
		}
	}
}

func (m *Merges) exec(prefix string) {
	m.t.Helper()
	for _, table := range m.tables {
		if err := m.conn.Exec(context.Background(), prefix+table); err != nil {
			m.t.Fatalf("%s%s: %v", prefix, table, err)
		}
	}
}
