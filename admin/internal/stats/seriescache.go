package stats

import (
	"context"
	"fmt"
	"sync"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// seriesCache keeps the unique clicks of a statistics page's range, per
// bucket and in all, under the names of the parts holding the sketch rows
// they were merged from (the argument of uniquecache.go: parts never
// change and names are not used again). A range's sketches are most of a
// busy link's page (90 days by week: 90 dense daily sketches, 14-19 ms on
// 18.16); reading the names takes none (~3 ms). A range that takes in
// today changes with every insert of the link's visitors, and is merged
// again then (the names' read is then ~3 ms more than before); the days
// before stand still. Entries are trusted for seriesMaxAge at most (a
// part name used again after a crash, partrank.go). On a cluster a
// target's rows are on one shard (chstore's shardingKeys), so the names
// of one shard's parts identify them.
type seriesCache struct {
	mu      sync.Mutex
	entries map[seriesKey]seriesEntry
	max     int
	hits    int // for tests
	misses  int
}

type seriesKey struct {
	kind       click.Kind
	id         int64
	table      string
	bucket     string
	from, till int64
}

type seriesEntry struct {
	parts string
	b     bucketed // never written once kept
	read  time.Time
}

// seriesMaxEntries bounds the cache: an entry holds a bucket per day or
// hour of its range (at most a few hundred, ~40 bytes each with the map),
// so 1,024 entries stay within ~30 MB.
const (
	seriesMaxEntries = 1024
	seriesMaxAge     = 10 * time.Minute
)

func newSeriesCache() *seriesCache {
	return &seriesCache{entries: map[seriesKey]seriesEntry{}, max: seriesMaxEntries}
}

// seriesPartsSQL names the parts holding a target's sketch rows of a range
// (%[1]s: table, %[2]s: its range condition).
const seriesPartsSQL = `SELECT arrayStringConcat(arraySort(groupUniqArray(_part)), ',') FROM %[1]s WHERE %[2]s`

// keyedBucketsSQL is bucketsSQL for the sketches, with the names of the
// parts read beside them, the range's in the totals row: one snapshot.
const keyedBucketsSQL = `SELECT toDateTime(%[2]s, 'UTC') AS b, ` + chstore.VisitorsMerge + `,
	arrayStringConcat(arraySort(groupUniqArray(_part)), ',')
FROM %[1]s WHERE %[3]s GROUP BY b WITH TOTALS`

// uniqueBuckets is buckets of g's visitor sketches (args: kind, id, from,
// end), kept while the parts holding them stand.
func (s *Service) uniqueBuckets(ctx context.Context, kind click.Kind, id int64, g grain, args []any) (bucketed, error) {
	k := seriesKey{kind: kind, id: id, table: g.table, bucket: g.bucket, from: args[2].(int64), till: args[3].(int64)}
	var parts string
	if err := s.conn.QueryRow(ctx, fmt.Sprintf(seriesPartsSQL, g.table, g.where), args...).Scan(&parts); err != nil {
		return bucketed{}, chstore.Unavailable("read click series parts", err)
	}
	if parts == "" { // no sketch in the range: nobody visited
		return bucketed{by: map[int64]uint64{}, totals: make([]uint64, 1)}, nil
	}
	if b, ok := s.series.get(k, parts, time.Now()); ok {
		return b, nil
	}
	b, parts, err := s.keyedBuckets(ctx, g, args)
	if err != nil {
		return bucketed{}, err
	}
	s.series.put(k, parts, b, time.Now())
	return b, nil
}

// keyedBuckets reads g's sketches by bucket, their range's total and the
// names of the parts they were merged from.
func (s *Service) keyedBuckets(ctx context.Context, g grain, args []any) (bucketed, string, error) {
	out := bucketed{by: map[int64]uint64{}, totals: make([]uint64, 1)}
	rows, err := s.conn.Query(ctx, fmt.Sprintf(keyedBucketsSQL, g.table, g.bucket, g.where), args...)
	if err != nil {
		return out, "", chstore.Unavailable("read click series", err)
	}
	defer rows.Close()
	var b time.Time
	var n uint64
	var parts string
	for rows.Next() {
		if err := rows.Scan(&b, &n, &parts); err != nil {
			return out, "", chstore.Unavailable("scan click series", err)
		}
		out.by[b.Unix()] = n
	}
	if err := rows.Err(); err != nil {
		return out, "", chstore.Unavailable("read click series", err)
	}
	if err := rows.Totals(&b, &out.totals[0], &parts); err != nil {
		return out, "", chstore.Unavailable("read click series totals", err)
	}
	return out, parts, nil
}

// get returns the buckets kept for k if they were read from parts, not
// longer than seriesMaxAge ago.
func (c *seriesCache) get(k seriesKey, parts string, now time.Time) (bucketed, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || e.parts != parts || parts == "" || now.Sub(e.read) >= seriesMaxAge {
		c.misses++
		return bucketed{}, false
	}
	c.hits++
	return e.b, true
}

// put keeps b, read from parts, making room as shed does.
func (c *seriesCache) put(k seriesKey, parts string, b bucketed, now time.Time) {
	if parts == "" {
		return // no sketch: nothing to save
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; !ok {
		shed(c.entries, c.max)
	}
	c.entries[k] = seriesEntry{parts: parts, b: b, read: now}
}
