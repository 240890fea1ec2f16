package price

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

var importNow = time.Date(2026, 11, 21, 16, 0, 0, 0, time.UTC)

// readFixture returns "line: symbol price currency RFC3339" for good rows
// and "line: error" for bad ones.
func readFixture(t *testing.T, name string, f Format) ([]string, error) {
	t.Helper()
	file, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var got []string
	err = ReadTicks(file, f, importNow, func(r Row) error {
		if r.Err != nil {
			got = append(got, fmt.Sprintf("%d: %v", r.Line, r.Err))
			return nil
		}
		got = append(got, fmt.Sprintf("%d: %s %s %s %s", r.Line, r.Tick.Symbol, r.Tick.Price, r.Tick.Currency, r.Tick.QuotedAt.Format(time.RFC3339)))
		return nil
	})
	return got, err
}

func TestReadTicks(t *testing.T) {
	tests := []struct {
		file   string
		format Format
		want   []string
	}{
		{"mixed.csv", FormatCSV, []string{
			"2: AAPL 189.25 USD 2026-11-20T16:00:00Z",
			"3: AAPL 188.10 USD 2026-11-19T16:00:00Z",
			"4: price: must be a decimal number greater than 0",
			"5: XETRA:SAP 201.350 EUR 2026-11-20T16:35:00Z",
			"6: symbol: must be 1 to 32",
			"7: currency: must be a three-letter",
			"8: timestamp: must be an RFC 3339 time",
			"9: has 3 fields, want 4",
			"10: symbol: must be",
			"12: BRK.B 412.00 USD 2026-11-20T16:00:00Z",
		}},
		{"reordered.csv", FormatCSV, []string{"2: AAPL 189.25 USD 2026-11-20T16:00:00Z"}},
		{"mixed.jsonl", FormatJSONLines, []string{
			"1: AAPL 189.25 USD 2026-11-20T16:00:00Z",
			"2: MSFT 415.10 USD 2026-11-20T16:00:00Z",
			"4: price: must be a decimal number greater than 0",
			"5: tick: must be a JSON object",
			"6: timestamp: required",
			"7: XETRA:SAP 201.35 EUR 2026-11-20T16:35:00Z",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := readFixture(t, tt.file, tt.format)
			if err != nil {
				t.Fatalf("ReadTicks: %v", err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d rows, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("row %d = %q, want prefix %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestReadTicksFileErrors(t *testing.T) {
	if _, err := readFixture(t, "badheader.csv", FormatCSV); err == nil || !strings.Contains(err.Error(), "header must name the columns") {
		t.Errorf("bad header: err = %v", err)
	}
	err := ReadTicks(strings.NewReader(""), FormatCSV, importNow, func(Row) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "empty file") {
		t.Errorf("empty file: err = %v", err)
	}
	long := `{"symbol":"` + strings.Repeat("A", MaxLine) + `"}`
	err = ReadTicks(strings.NewReader("\n"+long), FormatJSONLines, importNow, func(Row) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "line 2: longer than") {
		t.Errorf("long line: err = %v", err)
	}
	// A UTF-8 byte-order mark (spreadsheet exports) is not part of the header.
	n := 0
	err = ReadTicks(strings.NewReader("\ufeffsymbol,price,currency,timestamp\nA,1,USD,2026-11-20T16:00:00Z\n"), FormatCSV, importNow,
		func(r Row) error {
			if r.Err != nil {
				t.Errorf("row %d: %v", r.Line, r.Err)
			}
			n++
			return nil
		})
	if err != nil || n != 1 {
		t.Errorf("BOM file: err = %v, rows = %d", err, n)
	}
}

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		name, head string
		want       Format
	}{
		{"ticks.csv", `{"symbol"`, FormatCSV},
		{"ticks.CSV", "", FormatCSV},
		{"ticks.jsonl", "symbol,price", FormatJSONLines},
		{"ticks.ndjson", "", FormatJSONLines},
		{"ticks.json", "", FormatJSONLines},
		{"ticks.txt", "  \n {\"symbol\":1}", FormatJSONLines},
		{"ticks", "\ufeff{", FormatJSONLines},
		{"ticks", "symbol,price,currency,timestamp", FormatCSV},
		{"ticks", "", FormatCSV},
	}
	for _, tt := range tests {
		if got := DetectFormat(tt.name, []byte(tt.head)); got != tt.want {
			t.Errorf("DetectFormat(%q, %q) = %d, want %d", tt.name, tt.head, got, tt.want)
		}
	}
}
