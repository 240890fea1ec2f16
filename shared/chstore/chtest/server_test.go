package chtest

import (
	"context"
	"testing"

	"kurz/shared/chstore"
)

func TestServerStopsAndStartsForReal(t *testing.T) {
	s := StartServer(t)
	ping := func() error {
		conn, err := chstore.Open(context.Background(), s.DSN()+"?dial_timeout=1s")
		if err == nil {
			conn.Close()
		}
		return err
	}
	if err := ping(); err != nil {
		t.Fatalf("started server does not answer: %v", err)
	}
	pid := s.pid
	s.Stop(t)
	if alive(pid) {
		t.Fatalf("clickhouse-server %d still runs after Stop", pid)
	}
	if err := ping(); err == nil {
		t.Fatal("stopped server answers")
	}
	s.Start(t)
	if err := ping(); err != nil {
		t.Fatalf("restarted server does not answer: %v", err)
	}
}
