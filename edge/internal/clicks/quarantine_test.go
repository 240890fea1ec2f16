package clicks

import (
	"cmp"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kurz/shared/chstore/chtest"
	"kurz/shared/obs/obstest"
)

// TestQuarantinePrunedByAge: .bad files older than the quarantine age are
// deleted when the spool opens and when a new one is set aside; younger
// ones stay. Both counts are in Stats and in the log.
func TestQuarantinePrunedByAge(t *testing.T) {
	tests := []struct {
		name        string
		maxAge      time.Duration // 0: the default, 7 days
		ages        []time.Duration
		kept, prune int
	}{
		{"default age", 0, []time.Duration{time.Hour, 6 * 24 * time.Hour, 8 * 24 * time.Hour, 30 * 24 * time.Hour}, 2, 2},
		{"configured age", 2 * time.Hour, []time.Duration{time.Hour, 3 * time.Hour}, 1, 1},
		{"none old", 0, []time.Duration{time.Minute}, 1, 0},
	}
	conn, _ := chtest.New(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			now := time.Now()
			limit := cmp.Or(tt.maxAge, DefaultQuarantineMaxAge)
			var young, old []string
			for i, age := range tt.ages {
				path := filepath.Join(dir, fmtSeq(uint64(100+i))+segSuffix+badSuffix)
				if err := os.WriteFile(path, []byte("junk"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(path, now.Add(-age), now.Add(-age)); err != nil {
					t.Fatal(err)
				}
				if age > limit {
					old = append(old, path)
				} else {
					young = append(young, path)
				}
			}
			var logs obstest.Buffer
			p := start(t, Config{Conn: conn, SpoolDir: dir, FlushInterval: 50 * time.Millisecond, QuarantineMaxAge: tt.maxAge,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			for _, path := range old {
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Errorf("%s (older than the age) still there: %v", filepath.Base(path), err)
				}
			}
			for _, path := range young {
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s (younger than the age) deleted: %v", filepath.Base(path), err)
				}
			}
			if st := p.Stats(); st.Quarantined != tt.kept || st.QuarantinePruned != uint64(tt.prune) {
				t.Fatalf("Quarantined %d, QuarantinePruned %d; want %d, %d", st.Quarantined, st.QuarantinePruned, tt.kept, tt.prune)
			}
			out := logs.String()
			if tt.prune > 0 && !strings.Contains(out, "deleted="+strconv.Itoa(tt.prune)) {
				t.Errorf("log does not report %d deleted files:\n%s", tt.prune, out)
			}
			if !strings.Contains(out, "quarantined (unreadable) segments") || !strings.Contains(out, "files="+strconv.Itoa(tt.kept)) {
				t.Errorf("log does not report %d quarantined files:\n%s", tt.kept, out)
			}

			// A segment quarantined while running is counted at once.
			bad := filepath.Join(dir, fmtSeq(1)+segSuffix)
			p.spool.quarantine(bad+"-missing", os.ErrInvalid) // rename fails: not counted
			if err := os.WriteFile(bad, []byte("not a segment"), 0o600); err != nil {
				t.Fatal(err)
			}
			p.spool.quarantine(bad, os.ErrInvalid)
			if st := p.Stats(); st.Quarantined != tt.kept+1 {
				t.Fatalf("Quarantined %d after one more, want %d", st.Quarantined, tt.kept+1)
			}
		})
	}
}

// TestSpoolSyncsDirectory: after a segment file is created (a failed
// batch, a sealed overflow segment) or renamed (quarantined), the spool
// fsyncs its directory, so that the entry survives a crash as well as the
// data. A crash is not testable here; the hook shows the call and that it
// comes after the entry exists.
func TestSpoolSyncsDirectory(t *testing.T) {
	dir := t.TempDir()
	sp, err := openSpool(dir, 1<<30, 0, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	var synced []string // the directory's .seg/.bad entries at each sync
	sp.syncDir = func(d string) error {
		if d != dir {
			t.Errorf("synced %s, want the spool dir %s", d, dir)
		}
		names, _ := filepath.Glob(filepath.Join(dir, "*.seg*"))
		for i := range names {
			names[i] = filepath.Base(names[i])
		}
		synced = append(synced, strings.Join(names, ","))
		return syncDir(d)
	}
	first := fmtSeq(1) + segSuffix
	steps := []struct {
		name string
		do   func()
		want string // entries at the sync this step must cause
	}{
		{"failed batch written", func() {
			if _, err := sp.writeBatch(rowsAt(1, 10), false, nil); err != nil {
				t.Fatal(err)
			}
		}, first},
		{"overflow segment sealed", func() {
			o := &overflowWriter{s: sp, maxRows: 1000}
			for _, r := range rowsAt(100, 5) {
				if err := o.add(&r); err != nil {
					t.Fatal(err)
				}
			}
			if len(synced) != 1 {
				t.Fatalf("synced %d times before the overflow segment was sealed, want 1", len(synced))
			}
			if err := o.seal(); err != nil {
				t.Fatal(err)
			}
		}, first + "," + fmtSeq(2) + segSuffix},
		{"segment quarantined", func() { sp.quarantine(filepath.Join(dir, first), os.ErrInvalid) }, first + badSuffix + "," + fmtSeq(2) + segSuffix},
	}
	for i, s := range steps {
		s.do()
		if len(synced) != i+1 {
			t.Fatalf("%s: %d directory syncs so far, want %d", s.name, len(synced), i+1)
		}
		if synced[i] != s.want {
			t.Fatalf("%s: synced with entries %q, want %q", s.name, synced[i], s.want)
		}
	}
}

func TestSyncDir(t *testing.T) {
	if err := syncDir(t.TempDir()); err != nil {
		t.Fatalf("sync of a directory: %v", err)
	}
	if err := syncDir(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("sync of a missing directory succeeded")
	}
}

func fmtSeq(seq uint64) string {
	return strings.TrimSuffix(filepath.Base((&spool{}).path(seq)), segSuffix)
}

// TestQuarantineKeepsOldSegments: a segment is kept for the quarantine age
// counted from when it was set aside, not from when it was written (a
// rename keeps the mtime, so a segment written 30 days ago would be
// deleted at once); and only quarantined segments (*.seg.bad) are pruned,
// never another *.bad file an operator left in the directory.
func TestQuarantineKeepsOldSegments(t *testing.T) {
	dir := t.TempDir()
	sp, err := openSpool(dir, 1<<30, 0, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	old := time.Now().Add(-30 * 24 * time.Hour)
	seg := filepath.Join(dir, fmtSeq(7)+segSuffix)
	other := filepath.Join(dir, "notes.bad")
	for _, path := range []string{seg, other} {
		if err := os.WriteFile(path, []byte("junk"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	sp.quarantine(seg, os.ErrInvalid)
	if _, err := os.Stat(seg + badSuffix); err != nil {
		t.Fatalf("segment written 30 days ago deleted right after its quarantine: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("notes.bad (not a segment) pruned: %v", err)
	}
	if files, pruned := sp.quarantineStats(); files != 1 || pruned != 0 {
		t.Fatalf("quarantined %d, pruned %d; want 1, 0", files, pruned)
	}
}
