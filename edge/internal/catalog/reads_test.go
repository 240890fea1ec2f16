package catalog

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// behind is a replica that has replayed everything by its WAL position
// and still has no link: the gap between a commit and its replay.
type behind struct {
	Source
	loads atomic.Int64
}

func (b *behind) EdgeLinkByAlias(context.Context, string, string) (*link.EdgeLink, error) {
	b.loads.Add(1)
	return nil, link.ErrNotFound
}

func (b *behind) WALPosition(context.Context) (uint64, error) { return math.MaxUint64, nil }

// A link the replica does not have yet is asked of the primary before the
// edge says it does not exist; keys invalidated since the replica's last
// caught-up probe do not read it at all.
func TestReplicaMissFallsBackToPrimary(t *testing.T) {
	st, _ := pgtest.Store(t)
	u, err := st.CreateUser(context.Background(), pgstore.NewUser{Email: "f@example.com", Username: "f", Plan: "free", APIKeyHash: []byte("k")})
	if err != nil {
		t.Fatal(err)
	}
	exec(t, st, `INSERT INTO links (user_id, alias, long_url) VALUES ($1, 'new', 'https://example.com/new')`, u.ID)
	rep := &behind{Source: st}
	c, err := New(st, Config{Replica: rep})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	within(t, 5*time.Second, "replica probed", func() bool { return c.reads.up.Load() && c.reads.caughtUp.Load() > 0 })

	l, err := c.LoadLink(context.Background(), "", "new")
	if err != nil || l.Missing() {
		t.Fatalf("load: missing %v, %v", l != nil && l.Missing(), err)
	}
	if got := c.ReplicaStats(); got != (ReplicaStats{ReplicaLoads: 1, Fallbacks: 1}) || rep.loads.Load() != 1 {
		t.Fatalf("stats %+v, replica loads %d; want one replica load answered by the primary", got, rep.loads.Load())
	}

	// Invalidated after the probe's last look (stopped here): the replica
	// has not been seen to replay the change, so it is not asked.
	c.reads.close()
	c.InvalidateLink("", "new")
	if l, err := c.LoadLink(context.Background(), "", "new"); err != nil || l.Missing() {
		t.Fatalf("reload: %v", err)
	}
	if n := rep.loads.Load(); n != 1 {
		t.Fatalf("a key invalidated after the replica's caught-up point read the replica (%d loads)", n)
	}
}
