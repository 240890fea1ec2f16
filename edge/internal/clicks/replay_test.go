package clicks

import (
	"context"
	"os"
	"testing"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// rowsAt returns n valid rows with distinct click ids, captured now.
func rowsAt(first uint64, n int) []click.Row {
	rows := sampleRows(n)
	for i := range rows {
		rows[i].ClickID = first + uint64(i)
		rows[i].UnixNano = time.Now().UnixNano()
	}
	return rows
}

// writeSegments writes each batch as a segment in dir, the way a pipeline
// whose inserts failed would have.
func writeSegments(t *testing.T, dir string, checkFirst bool, batches ...[]click.Row) []string {
	t.Helper()
	sp, err := openSpool(dir, 1<<30, 0, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	var paths []string
	for _, b := range batches {
		if _, err := sp.writeBatch(b, checkFirst, nil); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, sp.path(sp.nextSeq-1))
	}
	return paths
}

func TestReplaySkipsCorruptRecords(t *testing.T) {
	conn, _ := chtest.New(t)
	dir := t.TempDir()
	paths := writeSegments(t, dir, false, rowsAt(1, 100), rowsAt(1001, 100), rowsAt(2001, 100), rowsAt(3001, 100))

	// Segment 0: truncated in its last record (a crash while appending).
	fi, _ := os.Stat(paths[0])
	if err := os.Truncate(paths[0], fi.Size()-5); err != nil {
		t.Fatal(err)
	}
	// Segment 1: one byte flipped in the middle.
	b, _ := os.ReadFile(paths[1])
	b[len(b)/2] ^= 0x10
	os.WriteFile(paths[1], b, 0o600)
	// Segment 2: not a segment at all.
	os.WriteFile(paths[2], []byte("this is not a kurz spool segment"), 0o600)
	// Segment 3 stays intact.

	p := start(t, Config{Conn: conn, SpoolDir: dir, FlushInterval: 50 * time.Millisecond})
	const want = 99 + 99 + 100 // one row lost in each corrupted segment; the foreign file set aside
	waitRows(t, conn, want, 10*time.Second)
	waitFor(t, 5*time.Second, "an empty spool", func() bool { return p.Stats().SpoolSegments == 0 })
	if st := p.Stats(); st.Corrupt != 2 || st.Replayed != want {
		t.Fatalf("stats %+v", st)
	}
	if _, err := os.Stat(paths[2] + badSuffix); err != nil {
		t.Fatalf("unreadable segment not set aside: %v", err)
	}
	if left := segmentFiles(t, dir); len(left) != 0 {
		t.Fatalf("segments left: %v", left)
	}
}

// TestReplayChecksUnacknowledgedBatches: a batch whose insert outcome was
// unknown is spooled with the check-first flag; replaying it inserts only
// the rows ClickHouse does not have.
func TestReplayChecksUnacknowledgedBatches(t *testing.T) {
	conn, _ := chtest.New(t)
	rows := rowsAt(1, 300)
	var blk click.Block
	for i := range rows[:120] { // the server had stored part of it: the first blocks of a chunked insert abandoned midway (chstore.Chunking)
		blk.Add(&rows[i])
	}
	if err := chstore.InsertBlock(context.Background(), conn, &blk); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeSegments(t, dir, true, rows)
	p := start(t, Config{Conn: conn, SpoolDir: dir, FlushInterval: 50 * time.Millisecond})
	waitFor(t, 10*time.Second, "the replay", func() bool { return p.Stats().SpoolSegments == 0 })
	waitRows(t, conn, 300, time.Second)
	if st := p.Stats(); st.DuplicatesSkipped != 120 || st.Replayed != 180 {
		t.Fatalf("stats %+v", st)
	}
}

// TestReplayFlagsSegmentBeforeSending: once a segment has been sent it
// carries the check-first flag, so a crash before its deletion cannot
// duplicate it.
func TestReplayFlagsSegmentBeforeSending(t *testing.T) {
	conn, _ := chtest.New(t)
	dir := t.TempDir()
	paths := writeSegments(t, dir, false, rowsAt(1, 50))
	// Simulate "sent, then crashed before deleting": run the load step and
	// the insert by hand, then keep the file.
	p := &Pipeline{cfg: Config{BatchSize: 100, InsertTimeout: 10 * time.Second}, conn: conn, log: testLogger(t)}
	seg := segment{seq: 1, path: paths[0], rows: 50}
	var r replayer
	todo, ok, err := p.loadSegment(context.Background(), seg, &r)
	if err != nil || !ok || len(todo) != 50 {
		t.Fatalf("load: %d rows, %v, %v", len(todo), ok, err)
	}
	if err := p.insert(context.Background(), &r.blk, todo); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(paths[0])
	if h, _ := parseHeader(data); h.flags&flagCheckFirst == 0 {
		t.Fatal("segment not flagged before its rows were sent")
	}
	// The restarted pipeline finds the flagged segment and inserts nothing twice.
	p2 := start(t, Config{Conn: conn, SpoolDir: dir, FlushInterval: 50 * time.Millisecond})
	waitFor(t, 10*time.Second, "the replay", func() bool { return p2.Stats().SpoolSegments == 0 })
	waitRows(t, conn, 50, time.Second)
	if st := p2.Stats(); st.DuplicatesSkipped != 50 {
		t.Fatalf("stats %+v", st)
	}
}
