package clicks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"kurz/shared/click"
)

const (
	minBackoff  = 100 * time.Millisecond
	maxBackoff  = 5 * time.Second // between pings while ClickHouse is unreachable
	pingTimeout = 5 * time.Second
	// maxReplayBackoff caps the wait between replay attempts ClickHouse
	// refused although it answered ping (read-only, disk full, too many
	// parts): each attempt re-reads and re-sends up to a batch of spooled
	// rows, and more inserts are the last thing such a server needs.
	maxReplayBackoff = 30 * time.Second
	// replayLogEvery is how often a replay that keeps failing is reported.
	replayLogEvery = time.Minute
	checkIDChunk   = 2000 // click ids per lookup query; keeps it far below max_query_size
	// replayMaxSegments bounds how many small segments one replay insert
	// combines.
	replayMaxSegments = 256
)

// replay is the replayer goroutine: while ClickHouse is down it pings with
// backoff; while the spool holds sealed segments it sends them oldest
// first, several small segments per insert. A failed replay is retried
// after a wait that doubles up to maxReplayBackoff and is reset only by a
// replay that succeeds, not by a ping: a server that answers ping but
// refuses inserts must not make the replayer re-read the spool in a loop.
// On stop it finishes the insert in flight (unless ctx is cancelled) and
// exits.
func (p *Pipeline) replay(ctx context.Context) {
	defer p.wg.Done()
	var (
		r     replayer
		ping  = newBackoff(minBackoff, maxBackoff)
		retry = newBackoff(minBackoff, maxReplayBackoff)
		fails = failureLog{every: replayLogEvery}
	)
	for !p.stopping() {
		if p.down.Load() {
			if err := p.ping(ctx); err != nil {
				if !p.sleep(ping.next()) {
					return
				}
				continue
			}
			ping.reset()
			if !p.spool.hasSealed() {
				p.markUp()
			}
		}
		if !p.spool.hasSealed() {
			select {
			case <-p.wake:
			case <-p.stop:
			}
			continue
		}
		err := p.replayNext(ctx, &r)
		if err == nil {
			retry.reset()
			fails.ok(p.log)
			p.markUp() // only now: the workers go back to inserting live batches
			continue
		}
		if ctx.Err() != nil {
			return
		}
		p.markDown(err)
		p.m.replayFailures.Add(1)
		wait := retry.next()
		segs, rows, _, _ := p.spool.pending()
		fails.fail(p.log, time.Now(), err, wait, segs, rows)
		if !p.sleep(wait) {
			return
		}
	}
}

func (p *Pipeline) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	return p.conn.Ping(ctx)
}

// replayNext inserts the rows of the oldest sealed segments, as many whole
// segments as fit in one batch (at least one), then deletes them. It
// returns an error only when ClickHouse failed; unreadable segments are set
// aside and corrupt records skipped.
func (p *Pipeline) replayNext(ctx context.Context, r *replayer) error {
	r.rows = r.rows[:0]
	r.taken = r.taken[:0]
	for _, seg := range p.spool.head(replayMaxSegments) {
		// seg.rows is the header's count: 0 for an overflow segment cut off
		// by a crash before it was sealed, hence the check after loading too.
		if len(r.taken) > 0 && len(r.rows)+seg.rows > p.cfg.BatchSize {
			break
		}
		rows, ok, err := p.loadSegment(ctx, seg, r)
		if err != nil {
			return err
		}
		if ok {
			r.rows = append(r.rows, rows...)
			r.taken = append(r.taken, seg)
		}
		if len(r.rows) >= p.cfg.BatchSize {
			break
		}
	}
	if len(r.rows) > 0 {
		if err := p.insert(ctx, &r.blk, r.rows); err != nil {
			return fmt.Errorf("replay %d spooled clicks: %w", len(r.rows), err)
		}
	}
	p.m.inserted.Add(uint64(len(r.rows)))
	p.m.replayed.Add(uint64(len(r.rows)))
	for _, seg := range r.taken {
		if err := p.spool.remove(seg); err != nil {
			// The segment is flagged, so replaying it again after a restart
			// inserts nothing twice.
			p.log.Error("click spool: replayed segment not deleted", "segment", seg.path, "err", err)
			p.spool.forget(seg)
		}
	}
	return nil
}

// replayer is the replay goroutine's reusable state.
type replayer struct {
	rows  []click.Row
	taken []segment
	parse []click.Row
	blk   click.Block
}

// loadSegment reads one segment and returns the rows still to insert. ok
// is false when the segment was unreadable and has been set aside. Before
// returning rows of an unflagged segment it flags the segment on disk, so
// that a crash after the insert leads to a check, not a second insert.
func (p *Pipeline) loadSegment(ctx context.Context, seg segment, r *replayer) ([]click.Row, bool, error) {
	data, err := os.ReadFile(seg.path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			p.spool.quarantine(seg.path, err)
		}
		p.spool.forget(seg)
		return nil, false, nil
	}
	c, err := parseSegment(data, r.parse, func(off int, reason string) {
		p.log.Warn("click spool: skipping corrupt record", "segment", seg.path, "offset", off, "reason", reason)
	})
	if err != nil {
		p.spool.quarantine(seg.path, err)
		p.spool.forget(seg)
		return nil, false, nil
	}
	r.parse = c.rows
	p.m.corrupt.Add(uint64(c.skipped))
	if c.header.flags&flagCheckFirst != 0 {
		todo, err := p.missingRows(ctx, c.rows)
		if err != nil {
			return nil, false, err
		}
		p.m.duplicatesSkipped.Add(uint64(len(c.rows) - len(todo)))
		return todo, true, nil
	}
	if err := setFlags(seg.path, c.header.flags|flagCheckFirst); err != nil {
		// Without the flag a crash right after the insert would replay the
		// segment blindly; still better than not replaying it.
		p.log.Warn("click spool: cannot flag segment before replay", "segment", seg.path, "err", err)
	}
	return c.rows, true, nil
}

// setFlags rewrites a segment's flags byte durably.
func setFlags(path string, flags uint8) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt([]byte{flags}, offFlags); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// missingRows returns the rows whose click_id is not yet in ClickHouse.
// The time range lets ClickHouse skip all other monthly partitions.
func (p *Pipeline) missingRows(ctx context.Context, rows []click.Row) ([]click.Row, error) {
	if len(rows) == 0 {
		return rows, nil
	}
	present := make(map[uint64]bool)
	for start := 0; start < len(rows); start += checkIDChunk {
		chunk := rows[start:min(start+checkIDChunk, len(rows))]
		if err := p.lookupIDs(ctx, chunk, present); err != nil {
			return nil, err
		}
	}
	if len(present) == 0 {
		return rows, nil
	}
	missing := make([]click.Row, 0, len(rows)-len(present))
	for _, r := range rows {
		if !present[r.ClickID] {
			missing = append(missing, r)
		}
	}
	return missing, nil
}

func (p *Pipeline) lookupIDs(ctx context.Context, rows []click.Row, present map[uint64]bool) error {
	ids := make([]any, len(rows))
	lo, hi := rows[0].UnixNano/1e9, rows[0].UnixNano/1e9
	for i, r := range rows {
		ids[i] = r.ClickID
		lo, hi = min(lo, r.UnixNano/1e9), max(hi, r.UnixNano/1e9)
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.InsertTimeout)
	defer cancel()
	res, err := p.conn.Query(ctx,
		"SELECT click_id FROM "+click.RawSource+" WHERE ts >= toDateTime(?) AND ts <= toDateTime(?) AND click_id IN ?",
		lo, hi, clickhouse.GroupSet{Value: ids})
	if err != nil {
		return fmt.Errorf("look up spooled click ids: %w", err)
	}
	defer res.Close()
	for res.Next() {
		var id uint64
		if err := res.Scan(&id); err != nil {
			return fmt.Errorf("scan click id: %w", err)
		}
		present[id] = true
	}
	return res.Err()
}

// sleep waits d; it reports false, early, when the pipeline stops.
func (p *Pipeline) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.stop:
		return false
	}
}

func (p *Pipeline) stopping() bool {
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
}
