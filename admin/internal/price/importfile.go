package price

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"kurz/shared/pgstore"
)

// Format is the layout of an import file.
type Format int

// Import file formats.
const (
	FormatCSV       Format = iota + 1 // header symbol,price,currency,timestamp (any order)
	FormatJSONLines                   // one tick object per line
)

// DetectFormat picks the format from the file name's extension (.csv;
// .jsonl, .ndjson, .json), else from the first non-space byte of the
// content: '{' means JSON lines.
func DetectFormat(name string, head []byte) Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return FormatCSV
	case ".jsonl", ".ndjson", ".json":
		return FormatJSONLines
	}
	if h := bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n"); len(h) > 0 && h[0] == '{' {
		return FormatJSONLines
	}
	return FormatCSV
}

var bom = []byte("\ufeff")

// MaxLine bounds one line of an import file.
const MaxLine = 1 << 20

// Row is one data line of an import file: a valid tick, or why it was
// rejected.
type Row struct {
	Line int
	Tick pgstore.Quote
	Err  error
}

// ReadTicks reads every data row of r and calls fn with it. Bad rows are
// passed on with Err set; ReadTicks itself fails only when the file as a
// whole cannot be read (I/O error, CSV header, over-long line) or fn fails.
func ReadTicks(r io.Reader, f Format, now time.Time, fn func(Row) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(len(bom)); bytes.Equal(head, bom) {
		br.Discard(len(bom)) //nolint:errcheck // peeked bytes are there
	}
	if f == FormatJSONLines {
		return readJSONLines(br, now, fn)
	}
	return readCSV(br, now, fn)
}

var columns = []string{"symbol", "price", "currency", "timestamp"}

func readCSV(r io.Reader, now time.Time, fn func(Row) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // counted here, for a clearer message
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return errors.New("empty file: want a header line symbol,price,currency,timestamp")
	}
	if err != nil {
		return fmt.Errorf("read header: %w", err)
	}
	idx, err := headerIndex(header)
	if err != nil {
		return err
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var parseErr *csv.ParseError
		if errors.As(err, &parseErr) {
			if err := fn(Row{Line: parseErr.StartLine, Err: fmt.Errorf("malformed CSV: %w", parseErr.Err)}); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("read csv: %w", err)
		}
		line, _ := cr.FieldPos(0)
		row := Row{Line: line}
		if len(rec) != len(header) {
			row.Err = fmt.Errorf("has %d fields, want %d", len(rec), len(header))
		} else {
			row.Tick, row.Err = RawTick{Symbol: rec[idx[0]], Price: rec[idx[1]], Currency: rec[idx[2]], Timestamp: rec[idx[3]]}.Validate(now)
		}
		if err := fn(row); err != nil {
			return err
		}
	}
}

// headerIndex maps the four columns to their positions; other columns are
// an error (a typo would otherwise silently drop data).
func headerIndex(header []string) ([4]int, error) {
	idx := [4]int{-1, -1, -1, -1}
	bad := fmt.Errorf("line 1: header must name the columns %s (in any order), got %q", strings.Join(columns, ","), strings.Join(header, ","))
	if len(header) != len(columns) {
		return idx, bad
	}
	for pos, name := range header {
		name = strings.ToLower(strings.TrimSpace(name))
		i := indexOf(columns, name)
		if i < 0 || idx[i] >= 0 {
			return idx, bad
		}
		idx[i] = pos
	}
	return idx, nil
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func readJSONLines(r io.Reader, now time.Time, fn func(Row) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		row := Row{Line: line}
		row.Tick, row.Err = ParseJSONTick(b, now)
		if err := fn(row); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("line %d: longer than %d bytes", line+1, MaxLine)
		}
		return fmt.Errorf("read line %d: %w", line+1, err)
	}
	return nil
}

// ImportStats counts an import's rows.
type ImportStats struct {
	Loaded   int // valid ticks stored (history) and applied where newer
	Rejected int // invalid rows, reported to reject
	Changed  int // latest quotes that changed
}

// ImportBatch is the number of ticks stored per transaction.
const ImportBatch = 1000

// Import loads the ticks of r in batches of ImportBatch (one PostgreSQL
// transaction and one ClickHouse insert each) and reports every bad row to
// reject with its line number. An error means a batch could not be stored;
// the batches before it are stored, and running the import again is safe.
func (s *Service) Import(ctx context.Context, r io.Reader, f Format, reject func(line int, err error)) (ImportStats, error) {
	var st ImportStats
	batch := make([]pgstore.Quote, 0, ImportBatch)
	first := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		n, err := s.Update(ctx, batch, SourceImport)
		st.Changed += n
		if err != nil {
			return fmt.Errorf("store ticks from line %d on: %w", first, err)
		}
		st.Loaded += len(batch)
		batch = batch[:0]
		return nil
	}
	err := ReadTicks(r, f, s.now(), func(row Row) error {
		if row.Err != nil {
			st.Rejected++
			reject(row.Line, row.Err)
			return nil
		}
		if len(batch) == 0 {
			first = row.Line
		}
		batch = append(batch, row.Tick)
		if len(batch) == ImportBatch {
			return flush()
		}
		return ctx.Err()
	})
	if err != nil {
		return st, err
	}
	return st, flush()
}
