// Package clustertest runs kurz on a ClickHouse cluster end to end (issue
// 17): `admin migrate` with KURZ_CLICKHOUSE_CLUSTER builds the schema on
// two shards, an edge takes visits and its click pipeline inserts them
// through the Distributed table, and the admin's stats show exactly the
// clicks sent. The cluster is deploy/local/cluster.sh's, started by `make
// test` and `make test-cluster`; the numbers of every stats read on a
// cluster against one server are compared in shared/chstore
// (TestClusterReadsEqualOneServer).
package clustertest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/internal/proctest"
	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
	"kurz/shared/obs/obstest"
	"kurz/shared/pgstore/pgtest"
)

var binDir string // holds edge and admin, built by TestMain

func TestMain(m *testing.M) { os.Exit(proctest.Main(m, &binDir, "edge", "admin")) }

// stack is one admin and one edge on a cluster database.
type stack struct {
	t           *testing.T
	env         []string
	admin, edge string // base URLs
	ch          driver.Conn
}

func newStack(t *testing.T, envURL string, c chstore.Cluster) *stack {
	t.Helper()
	_, pgDSN := pgtest.New(t)
	chDSN := chtest.EmptyCluster(t, chtest.ClusterDSN(t, envURL), c)
	replicated := "0"
	if c.Replicated {
		replicated = "1"
	}
	s := &stack{t: t, env: append(os.Environ(),
		"KURZ_DATABASE_URL="+pgDSN, "KURZ_CLICKHOUSE_URL="+chDSN,
		"KURZ_CLICKHOUSE_CLUSTER="+c.Name, "KURZ_CLICKHOUSE_REPLICATED="+replicated, "KURZ_PRICE_ADDR=",
		"KURZ_BASE_URL=http://sho.rt", "KURZ_SECRET=cluster-secret-0123456789abcdef0123456789",
		"KURZ_CLICK_FLUSH_INTERVAL=200ms", "KURZ_LOG_LEVEL=warn", "KURZ_EDGE_METRICS_ADDR=", "KURZ_ADMIN_METRICS_ADDR=",
		"KURZ_TRUSTED_PROXIES=127.0.0.1",
	)}
	s.ch = open(t, chDSN)
	// The schema comes from the real command, as a deployment runs it.
	if out, err := s.command("admin", nil, "migrate").CombinedOutput(); err != nil {
		t.Fatalf("admin migrate on cluster %s: %v\n%s", c.Name, err, out)
	}
	admin, edge := obstest.FreeAddr(t), obstest.FreeAddr(t)
	proctest.Start(t, "admin", s.command("admin", []string{"KURZ_ADMIN_ADDR=" + admin}, "serve"))
	proctest.Start(t, "edge", s.command("edge", []string{"KURZ_EDGE_ADDR=" + edge, "KURZ_SPOOL_DIR=" + t.TempDir()}))
	s.admin, s.edge = "http://"+admin, "http://"+edge
	proctest.WaitReady(t, s.admin)
	proctest.WaitReady(t, s.edge)
	return s
}

func (s *stack) command(name string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(binDir, name), args...)
	cmd.Env = append(append([]string{}, s.env...), env...)
	return cmd
}

// userKey creates an account and returns its API key.
func (s *stack) userKey(name string) string {
	s.t.Helper()
	return proctest.APIKey(s.t, s.command("admin", nil, "user", "create", "--email", name+"@example.com", "--username", name))
}

// call sends an API request and returns the decoded body of a 200.
func (s *stack) call(key, method, path string, body any) map[string]any {
	s.t.Helper()
	return proctest.CallOK(s.t, s.admin, key, method, path, body)
}

// visit requests alias at the edge as a browser at ip and returns the
// status.
func (s *stack) visit(alias, ip string) int {
	s.t.Helper()
	req, _ := http.NewRequest("GET", s.edge+"/"+alias, nil)
	req.Host = "sho.rt"
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0")
	req.Header.Set("X-Forwarded-For", ip)
	res, err := proctest.NoRedirect.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body) //nolint:errcheck
	res.Body.Close()
	return res.StatusCode
}

// redirect visits alias and expects the redirect. The first visit of a
// new link waits until the edge has heard of it (a 404 counts no click).
func (s *stack) redirect(alias, ip string, first bool) {
	s.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		st := s.visit(alias, ip)
		if st == http.StatusFound {
			return
		}
		if !first || st != http.StatusNotFound || time.Now().After(deadline) {
			s.t.Fatalf("visit /%s: %d", alias, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sent is what the test sent to one link: visits, and distinct visitors.
type sent struct {
	id             int64
	clicks, unique int
}

// clickLinks creates n links and visits link i 3+2i times from i+2
// addresses (a visitor comes back), so every link has its own numbers.
func (s *stack) clickLinks(key string, n int) []sent {
	s.t.Helper()
	var out []sent
	for i := range n {
		alias := fmt.Sprintf("cl%d", i)
		r := s.call(key, "POST", "/api/url/add", map[string]any{"url": "https://example.com/" + alias, "custom": alias})
		ln := sent{id: int64(r["id"].(float64)), clicks: 3 + 2*i, unique: i + 2}
		for v := range ln.clicks {
			s.redirect(alias, fmt.Sprintf("198.51.100.%d", 1+v%ln.unique), v == 0)
		}
		out = append(out, ln)
	}
	return out
}

// waitCounted polls the single-link responses until every link shows
// the clicks and distinct visitors sent, for at most 20 s.
func (s *stack) waitCounted(key string, links []sent) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, ln := range links {
		for {
			data := s.call(key, "GET", fmt.Sprintf("/api/url/%d", ln.id), nil)["data"].(map[string]any)
			if data["clicks"] == float64(ln.clicks) && data["uniqueClicks"] == float64(ln.unique) {
				break
			}
			if time.Now().After(deadline) {
				s.t.Fatalf("link %d shows %v clicks, %v unique 20 s after the visits; %d and %d were sent",
					ln.id, data["clicks"], data["uniqueClicks"], ln.clicks, ln.unique)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// checkStats compares the list ordered by clicks and each link's chart
// with what was sent. One INSERT fills the tables behind these reads
// through separate views, one after another, so a read just after
// waitCounted may find the insert halfway: it asks for the complete
// answer within 10 s, not the first one.
func (s *stack) checkStats(key string, links []sent) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		problems := s.statsProblems(key, links)
		if len(problems) == 0 {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("10 s after the visits were counted:\n%s", strings.Join(problems, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// statsProblems lists where the list and the charts differ from what was
// sent.
func (s *stack) statsProblems(key string, links []sent) []string {
	var out []string
	urls := s.call(key, "GET", "/api/urls?order=click&limit=100", nil)["data"].(map[string]any)["urls"].([]any)
	if len(urls) != len(links) {
		return append(out, fmt.Sprintf("list has %d links, want %d", len(urls), len(links)))
	}
	for i, u := range urls {
		want := links[len(links)-1-i] // most clicked first
		row := u.(map[string]any)
		if row["id"] != float64(want.id) || row["clicks"] != float64(want.clicks) {
			out = append(out, fmt.Sprintf("list row %d: id %v clicks %v, want id %d clicks %d", i, row["id"], row["clicks"], want.id, want.clicks))
		}
	}
	for _, ln := range links {
		data := s.call(key, "GET", fmt.Sprintf("/api/url/%d/stats?interval=hour", ln.id), nil)["data"].(map[string]any)
		var series float64
		for _, b := range data["series"].([]any) {
			series += b.(map[string]any)["clicks"].(float64)
		}
		if data["clicks"] != float64(ln.clicks) || series != float64(ln.clicks) || data["uniqueClicks"] != float64(ln.unique) {
			out = append(out, fmt.Sprintf("link %d chart: clicks %v (series sum %v), unique %v; sent %d, %d", ln.id, data["clicks"], series, data["uniqueClicks"], ln.clicks, ln.unique))
		}
	}
	return out
}

// open connects to dsn until the test ends.
func open(t *testing.T, dsn string) driver.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := chstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// count runs a query of one count on conn.
func count(t *testing.T, conn driver.Conn, query string) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var n uint64
	if err := conn.QueryRow(ctx, query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// shardCounts returns the clicks each server of c holds in click_events_local,
// asking each server directly.
func (s *stack) shardCounts(c chstore.Cluster) []uint64 {
	s.t.Helper()
	var out []uint64
	for _, dsn := range chtest.ServerDSNs(s.t, s.ch, c) {
		out = append(out, count(s.t, open(s.t, dsn), "SELECT count() FROM "+click.Table+chstore.LocalSuffix))
	}
	return out
}

// checkOtherTables checks the cluster's other writers: the edge's
// ingest heartbeats and `admin price import`'s ticks are readable through
// their Distributed tables.
func (s *stack) checkOtherTables() {
	s.t.Helper()
	const prices = "../../deploy/local/sample-prices.csv" // 8 ticks
	if out, err := s.command("admin", nil, "price", "import", prices).CombinedOutput(); err != nil {
		s.t.Fatalf("admin price import: %v\n%s", err, out)
	}
	beats, ticks := count(s.t, s.ch, "SELECT count() FROM ingest_heartbeats"), count(s.t, s.ch, "SELECT count() FROM price_ticks")
	if beats == 0 || ticks != 8 {
		s.t.Fatalf("%d ingest heartbeats (want some) and %d price ticks (want 8) on the cluster", beats, ticks)
	}
}

// TestClusterEdgeAndStatsOnTwoShards: the clicks an edge takes reach both shards
// through the Distributed table, none twice, and the admin's single-link,
// list and chart responses show exactly what was sent.
func TestClusterEdgeAndStatsOnTwoShards(t *testing.T) {
	t.Parallel() // own databases and processes
	c := chstore.Cluster{Name: chtest.ShardedCluster}
	s := newStack(t, chtest.EnvClusterURL, c)
	key := s.userKey("cluster")
	links := s.clickLinks(key, 8)
	s.waitCounted(key, links)
	s.checkStats(key, links)
	s.checkOtherTables()
	total := 0
	for _, ln := range links {
		total += ln.clicks
	}
	counts := s.shardCounts(c)
	if len(counts) != 2 || counts[0] == 0 || counts[1] == 0 || int(counts[0]+counts[1]) != total {
		t.Fatalf("clicks per shard %v, want both non-empty and %d in all", counts, total)
	}
	t.Logf("clicks per shard: %v", counts)
}

// TestClusterEdgeAndStatsOnReplicas: the same on one shard of two
// ReplicatedMergeTree replicas; after replication both hold every click.
func TestClusterEdgeAndStatsOnReplicas(t *testing.T) {
	t.Parallel() // own databases and processes
	c := chstore.Cluster{Name: chtest.ReplicatedCluster, Replicated: true}
	s := newStack(t, chtest.EnvReplicatedURL, c)
	key := s.userKey("replicas")
	links := s.clickLinks(key, 3)
	s.waitCounted(key, links)
	s.checkStats(key, links)
	total := 0
	for _, ln := range links {
		total += ln.clicks
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		counts := s.shardCounts(c)
		if len(counts) == 2 && int(counts[0]) == total && int(counts[1]) == total {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("clicks per replica %v 20 s after the visits, want %d on each", counts, total)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
