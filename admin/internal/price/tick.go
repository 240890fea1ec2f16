package price

import (
	"bytes"
	"encoding/json"
	"time"

	"kurz/shared/pgstore"
)

// RawTick is a tick as received, before validation.
type RawTick struct {
	Symbol    string
	Price     string
	Currency  string
	Timestamp string
}

// Validate checks every field and returns the normalised tick; the first
// failing field is reported.
func (r RawTick) Validate(now time.Time) (pgstore.Quote, error) {
	var q pgstore.Quote
	var err error
	if q.Symbol, err = NormalizeSymbol(r.Symbol); err != nil {
		return q, err
	}
	if q.Price, err = ParsePrice(r.Price); err != nil {
		return q, err
	}
	if q.Currency, err = NormalizeCurrency(r.Currency); err != nil {
		return q, err
	}
	if q.QuotedAt, err = ParseTickTime(r.Timestamp, now); err != nil {
		return q, err
	}
	return q, nil
}

// jsonTick is the wire form of a tick in push bodies and JSON-lines files.
// Price may be a JSON number or a decimal string; RawMessage keeps a number's
// text exactly as sent.
type jsonTick struct {
	Symbol    json.RawMessage `json:"symbol"`
	Price     json.RawMessage `json:"price"`
	Currency  json.RawMessage `json:"currency"`
	Timestamp json.RawMessage `json:"timestamp"`
}

// ParseJSONTick decodes and validates one tick object
// {"symbol","price","currency","timestamp"}.
func ParseJSONTick(data []byte, now time.Time) (pgstore.Quote, error) {
	var in jsonTick
	if d := bytes.TrimSpace(data); len(d) == 0 || d[0] != '{' {
		return pgstore.Quote{}, &FieldError{"tick", "must be a JSON object"}
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return pgstore.Quote{}, &FieldError{"tick", "must be a well-formed JSON object"}
	}
	var raw RawTick
	var err error
	if raw.Symbol, err = jsonString("symbol", in.Symbol); err != nil {
		return pgstore.Quote{}, err
	}
	if raw.Price, err = jsonNumber("price", in.Price); err != nil {
		return pgstore.Quote{}, err
	}
	if raw.Currency, err = jsonString("currency", in.Currency); err != nil {
		return pgstore.Quote{}, err
	}
	if raw.Timestamp, err = jsonString("timestamp", in.Timestamp); err != nil {
		return pgstore.Quote{}, err
	}
	return raw.Validate(now)
}

// jsonString reads a JSON string; absent or null is "" (then "required").
func jsonString(field string, v json.RawMessage) (string, error) {
	if len(v) == 0 || string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", &FieldError{field, "must be a string"}
	}
	return s, nil
}

// jsonNumber returns a JSON number's literal text, or a JSON string's
// content (vendors often quote prices to keep their precision).
func jsonNumber(field string, v json.RawMessage) (string, error) {
	if len(v) == 0 || string(v) == "null" {
		return "", nil
	}
	if v[0] == '"' {
		return jsonString(field, v)
	}
	var n json.Number
	if err := json.Unmarshal(v, &n); err != nil {
		return "", &FieldError{field, "must be a number or a decimal string"}
	}
	return n.String(), nil
}
