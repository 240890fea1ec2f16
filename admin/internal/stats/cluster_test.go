package stats_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"kurz/admin/internal/stats"
	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// TestClusterRangeEqualsOneServer: the charts' series and totals (the
// reads of this package beyond shared/chstore's) come out the same on a
// two-shard cluster (deploy/local/cluster.sh, started by `make test` and
// `make test-cluster`) as on one server holding the same clicks.
func TestClusterRangeEqualsOneServer(t *testing.T) {
	cluster, _ := chtest.NewCluster(t, chtest.ClusterDSN(t, chtest.EnvClusterURL), chstore.Cluster{Name: chtest.ShardedCluster})
	single, _ := chtest.New(t)
	now := time.Now().UTC().Truncate(time.Second)
	rows := chtest.Clicks(now, 3000)
	insert(t, cluster, rows)
	insert(t, single, rows)
	onCluster, onOne := stats.New(cluster), stats.New(single)
	ctx := context.Background()
	var clicks uint64
	for id := int64(1); id <= 41; id++ {
		for _, iv := range []stats.Interval{stats.Day, stats.Hour} {
			from := now.AddDate(0, 0, -30)
			if iv == stats.Hour {
				from = now.AddDate(0, 0, -3)
			}
			got, err := onCluster.Range(ctx, click.KindLink, id, from, now, iv)
			if err != nil {
				t.Fatal(err)
			}
			want, err := onOne.Range(ctx, click.KindLink, id, from, now, iv)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("link %d by %s: cluster %+v\none server %+v", id, iv, got, want)
			}
			clicks += got.Clicks
		}
	}
	if clicks == 0 {
		t.Fatal("no clicks in any range: the comparison compared nothing")
	}
	for _, svc := range []*stats.Service{onCluster, onOne} {
		if f, err := svc.Freshness(ctx); err != nil || f.Writers != 0 {
			t.Fatalf("freshness without pipelines: %+v, %v", f, err)
		}
	}
	// Rankings: kept part by part on one server only (each shard names
	// its own parts), and the same either way.
	for owner := int64(1); owner <= 3; owner++ {
		got, err := onCluster.Ranking(ctx, click.KindLink, owner, 0)
		if err != nil {
			t.Fatal(err)
		}
		want, err := onOne.Ranking(ctx, click.KindLink, owner, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.IDs) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("owner %d's ranking: cluster %v\none server %v", owner, got, want)
		}
	}
	if full, _, _ := onCluster.PartRankCounts(); full != 0 {
		t.Errorf("the cluster's rankings were kept by parts (%d read whole)", full)
	}
	if full, _, _ := onOne.PartRankCounts(); full != 3 {
		t.Errorf("one server's rankings: %d read whole, want 3 (kept by parts)", full)
	}
}
