package clicks

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"

	"kurz/shared/click"
)

// overflowWriter appends rows to the open overflow segment. Only the
// spooler goroutine uses it. A segment is sealed (header patched with its
// row count, fsynced, handed to the replayer) when it holds a batch worth
// of rows, on the spooler's tick, and at shutdown.
type overflowWriter struct {
	s       *spool
	maxRows int
	buf     []byte

	f         *os.File
	w         *bufio.Writer
	seq       uint64
	size      int64
	rows      int
	firstNano int64
}

func (o *overflowWriter) add(r *click.Row) error {
	o.buf = appendRecord(o.buf[:0], r)
	need := int64(len(o.buf))
	if o.f == nil {
		need += segHeaderSize
	}
	if err := o.s.reserve(need); err != nil {
		return err
	}
	if o.f == nil {
		if err := o.open(r.UnixNano); err != nil {
			o.s.release(need)
			return err
		}
	}
	if _, err := o.w.Write(o.buf); err != nil {
		o.s.release(int64(len(o.buf)))
		o.abandon()
		return fmt.Errorf("append to spool segment: %w", err)
	}
	o.size += int64(len(o.buf))
	o.rows++
	o.s.setOpen(o.firstNano, o.rows)
	if o.rows >= o.maxRows {
		return o.seal()
	}
	return nil
}

func (o *overflowWriter) open(firstNano int64) error {
	seq := o.s.allocSeq()
	f, err := os.OpenFile(o.s.path(seq), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("create spool segment: %w", err)
	}
	o.f, o.seq, o.firstNano, o.rows, o.size = f, seq, firstNano, 0, segHeaderSize
	if o.w == nil {
		o.w = bufio.NewWriterSize(f, 64<<10)
	} else {
		o.w.Reset(f)
	}
	if _, err := o.w.Write(appendHeader(nil, segHeader{firstNano: firstNano})); err != nil {
		o.abandon()
		return fmt.Errorf("write spool segment header: %w", err)
	}
	return nil
}

// seal makes the open segment durable and replayable.
func (o *overflowWriter) seal() error {
	if o.f == nil {
		return nil
	}
	err := o.w.Flush()
	if err == nil {
		var n [4]byte
		binary.LittleEndian.PutUint32(n[:], uint32(o.rows))
		_, err = o.f.WriteAt(n[:], offRows)
	}
	if err == nil {
		err = o.f.Sync()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	// The file was created when the segment opened; its directory entry is
	// made durable together with its data, here, once per segment.
	o.s.syncEntries()
	// Even after an error the file holds what reached the disk; the reader
	// copes with a torn tail, so hand it to the replayer rather than lose it.
	o.s.addSealed(segment{seq: o.seq, path: o.s.path(o.seq), size: o.size, firstNano: o.firstNano, rows: o.rows})
	o.s.setOpen(0, 0)
	o.f = nil
	if err != nil {
		return fmt.Errorf("seal spool segment: %w", err)
	}
	return nil
}

// abandon closes a segment after a write error, keeping what it holds.
func (o *overflowWriter) abandon() {
	_ = o.seal()
}
