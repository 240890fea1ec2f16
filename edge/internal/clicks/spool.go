package clicks

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"kurz/shared/click"
)

const (
	segSuffix = ".seg"
	badSuffix = ".bad" // unreadable segments are renamed, kept for inspection (quarantine.go)
	lockName  = "LOCK"
)

// errSpoolFull is returned when writing would exceed Config.SpoolMaxBytes.
var errSpoolFull = errors.New("click spool full")

// segment is a sealed segment waiting for replay.
type segment struct {
	seq       uint64
	path      string
	size      int64
	firstNano int64
	rows      int
}

// spool is the directory of segment files. It owns the directory through an
// exclusive lock file: two processes appending to and deleting from one
// spool would replay each other's segments twice.
type spool struct {
	dir       string
	max       int64
	badMaxAge time.Duration
	log       *slog.Logger
	lock      *os.File
	// syncDir fsyncs the directory after a segment is created or renamed;
	// a field so that tests can see it called (a crash test is not feasible).
	syncDir func(dir string) error

	mu       sync.Mutex
	nextSeq  uint64
	sealed   []segment // by seq
	bytes    int64     // sealed + open segments
	openNano int64     // firstNano of the open overflow segment, 0 if none
	openRows int
	full     bool // the cap was hit and not yet relieved (for log throttling)

	badFiles  int    // quarantined .bad files in dir now
	badPruned uint64 // .bad files deleted for their age
}

// openSpool locks and scans dir; quarantined segments older than badMaxAge
// (DefaultQuarantineMaxAge when 0) are deleted.
func openSpool(dir string, max int64, badMaxAge time.Duration, log *slog.Logger) (*spool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create spool dir: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open spool lock: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("spool dir %s is in use by another process (each edge needs its own KURZ_SPOOL_DIR): %w", dir, err)
	}
	if badMaxAge <= 0 {
		badMaxAge = DefaultQuarantineMaxAge
	}
	s := &spool{dir: dir, max: max, badMaxAge: badMaxAge, log: log, lock: lock, nextSeq: 1, syncDir: syncDir}
	if err := s.scan(); err != nil {
		s.close()
		return nil, err
	}
	s.pruneQuarantine(time.Now())
	s.reportQuarantine()
	return s, nil
}

// scan registers the segments a previous run left behind.
func (s *spool) scan() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("list spool dir: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, segSuffix) {
			continue
		}
		seq, err := strconv.ParseUint(strings.TrimSuffix(name, segSuffix), 10, 64)
		if err != nil {
			continue
		}
		seg, err := s.inspect(seq)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			// A crash between creating the file and writing its header: it
			// holds no rows.
			s.log.Warn("click spool: removing segment without a complete header", "path", s.path(seq))
			os.Remove(s.path(seq))
			continue
		}
		if err != nil {
			s.quarantine(filepath.Join(s.dir, name), err)
			continue
		}
		s.sealed = append(s.sealed, seg)
		s.bytes += seg.size
		s.nextSeq = max(s.nextSeq, seq+1)
	}
	slices.SortFunc(s.sealed, func(a, b segment) int { return cmp.Compare(a.seq, b.seq) })
	return nil
}

func (s *spool) inspect(seq uint64) (segment, error) {
	path := s.path(seq)
	f, err := os.Open(path)
	if err != nil {
		return segment{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return segment{}, err
	}
	var hb [segHeaderSize]byte
	if _, err := io.ReadFull(f, hb[:]); err != nil {
		return segment{}, err
	}
	h, err := parseHeader(hb[:])
	if err != nil {
		return segment{}, err
	}
	return segment{seq: seq, path: path, size: st.Size(), firstNano: h.firstNano, rows: int(h.rows)}, nil
}

func (s *spool) path(seq uint64) string {
	return filepath.Join(s.dir, fmt.Sprintf("%020d%s", seq, segSuffix))
}

// reserve accounts n more bytes against the cap.
func (s *spool) reserve(n int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bytes+n > s.max {
		if !s.full {
			s.full = true
			s.log.Error("click spool full: clicks are being dropped until ClickHouse takes the backlog",
				"dir", s.dir, "bytes", s.bytes, "max_bytes", s.max)
		}
		return errSpoolFull
	}
	if s.full && s.bytes+n <= s.max*9/10 {
		s.full = false
		s.log.Info("click spool below its cap again", "dir", s.dir, "bytes", s.bytes)
	}
	s.bytes += n
	return nil
}

func (s *spool) release(n int64) {
	s.mu.Lock()
	s.bytes -= n
	s.mu.Unlock()
}

func (s *spool) allocSeq() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	seq := s.nextSeq
	s.nextSeq++
	return seq
}

func (s *spool) addSealed(seg segment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, _ := slices.BinarySearchFunc(s.sealed, seg.seq, func(a segment, seq uint64) int { return cmp.Compare(a.seq, seq) })
	s.sealed = slices.Insert(s.sealed, i, seg)
}

// writeBatch writes rows as one new sealed segment: a batch ClickHouse did
// not take. checkFirst marks a batch whose insert outcome is unknown.
func (s *spool) writeBatch(rows []click.Row, checkFirst bool, buf []byte) ([]byte, error) {
	var flags uint8
	if checkFirst {
		flags |= flagCheckFirst
	}
	buf = appendHeader(buf[:0], segHeader{flags: flags, firstNano: rows[0].UnixNano, rows: uint32(len(rows))})
	for i := range rows {
		buf = appendRecord(buf, &rows[i])
	}
	if err := s.reserve(int64(len(buf))); err != nil {
		return buf, err
	}
	seq := s.allocSeq()
	path := s.path(seq)
	if err := writeFileSync(path, buf); err != nil {
		s.release(int64(len(buf)))
		os.Remove(path)
		return buf, fmt.Errorf("write spool segment: %w", err)
	}
	s.syncEntries()
	s.addSealed(segment{seq: seq, path: path, size: int64(len(buf)), firstNano: rows[0].UnixNano, rows: len(rows)})
	return buf, nil
}

func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// head returns the oldest sealed segments, at most n of them.
func (s *spool) head(n int) []segment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sealed[:min(n, len(s.sealed))])
}

func (s *spool) hasSealed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sealed) > 0
}

// remove deletes a replayed segment.
func (s *spool) remove(seg segment) error {
	if err := os.Remove(seg.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("delete replayed spool segment: %w", err)
	}
	s.forget(seg)
	return nil
}

// forget drops seg from the books (after deleting or quarantining it).
func (s *spool) forget(seg segment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sealed = slices.DeleteFunc(s.sealed, func(x segment) bool { return x.seq == seg.seq })
	s.bytes -= seg.size
}

// pending summarises the spool for metrics and the ingest watermark.
func (s *spool) pending() (segments, rows int, bytes, oldestNano int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	oldestNano = s.openNano
	rows = s.openRows
	for _, seg := range s.sealed {
		rows += seg.rows
		if seg.firstNano != 0 && (oldestNano == 0 || seg.firstNano < oldestNano) {
			oldestNano = seg.firstNano
		}
	}
	return len(s.sealed), rows, s.bytes, oldestNano
}

func (s *spool) setOpen(firstNano int64, rows int) {
	s.mu.Lock()
	s.openNano, s.openRows = firstNano, rows
	s.mu.Unlock()
}

func (s *spool) close() {
	if s.lock != nil {
		syscall.Flock(int(s.lock.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing releases it anyway
		s.lock.Close()
		s.lock = nil
	}
}
