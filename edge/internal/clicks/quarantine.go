package clicks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultQuarantineMaxAge is how long unreadable segments (.bad files) are
// kept for inspection before the spool deletes them.
const DefaultQuarantineMaxAge = 7 * 24 * time.Hour

// syncDir fsyncs a directory, making the creation, renaming or removal of
// its entries durable: fsyncing a file makes its data durable, not the
// directory entry that names it, so after a crash a segment written and
// fsynced could otherwise be missing, or a quarantined one back under its
// old name.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open spool dir for sync: %w", err)
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return fmt.Errorf("sync spool dir: %w", err)
	}
	return d.Close()
}

// syncEntries makes the directory's entries durable after a segment was
// created or renamed. A failure is logged, not returned: the segment's
// data is on disk and it stays in the books; the disk is failing and the
// operator has to know, but dropping the rows would not help.
func (s *spool) syncEntries() {
	if err := s.syncDir(s.dir); err != nil {
		s.log.Error("click spool: directory not synced; a crash may lose the newest segment", "dir", s.dir, "err", err)
	}
}

// quarantine renames a segment this build cannot read, so that it is kept
// for inspection but neither retried nor counted against the cap. Each new
// quarantine also prunes the ones past their age, so a long-running edge
// cannot pile them up.
func (s *spool) quarantine(path string, cause error) {
	s.log.Error("click spool: unreadable segment set aside", "path", path, "renamed", path+badSuffix, "err", cause)
	bad := path + badSuffix
	if err := os.Rename(path, bad); err != nil {
		s.log.Error("click spool: rename unreadable segment", "path", path, "err", err)
		return
	}
	// The quarantine age counts from now: a rename keeps the mtime, and a
	// segment written a week ago would otherwise be pruned right away.
	now := time.Now()
	if err := os.Chtimes(bad, now, now); err != nil {
		s.log.Error("click spool: dating quarantined segment", "path", bad, "err", err)
	}
	s.syncEntries()
	s.mu.Lock()
	s.badFiles++
	s.mu.Unlock()
	s.pruneQuarantine(now)
}

// pruneQuarantine deletes quarantined segments (*.seg.bad) older than the quarantine age,
// recounts the rest and logs both numbers when there is anything to say.
func (s *spool) pruneQuarantine(now time.Time) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		s.log.Error("click spool: listing quarantined segments", "dir", s.dir, "err", err)
		return
	}
	kept, pruned := 0, 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), segSuffix+badSuffix) { // only ours, not any *.bad
			continue
		}
		info, err := e.Info()
		if err != nil { // deleted meanwhile
			continue
		}
		if now.Sub(info.ModTime()) <= s.badMaxAge {
			kept++
			continue
		}
		path := filepath.Join(s.dir, e.Name())
		if err := os.Remove(path); err != nil {
			s.log.Error("click spool: deleting old quarantined segment", "path", path, "err", err)
			kept++
			continue
		}
		pruned++
	}
	s.mu.Lock()
	s.badFiles = kept
	s.badPruned += uint64(pruned)
	s.mu.Unlock()
	if pruned > 0 {
		s.log.Info("click spool: deleted old quarantined segments", "dir", s.dir, "deleted", pruned, "max_age", s.badMaxAge)
	}
}

// reportQuarantine logs how many quarantined segments the spool holds.
func (s *spool) reportQuarantine() {
	if n, _ := s.quarantineStats(); n > 0 {
		s.log.Warn("click spool holds quarantined (unreadable) segments; inspect or delete them",
			"dir", s.dir, "files", n, "pattern", "*"+segSuffix+badSuffix, "deleted_after", s.badMaxAge)
	}
}

// quarantineStats returns the .bad files in the directory now and how many
// were deleted for their age.
func (s *spool) quarantineStats() (files int, pruned uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.badFiles, s.badPruned
}
