package price

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kurz/shared/pgstore"
)

// Provider fetches the current quote of one symbol from a market-data
// source. The poller depends on this seam so a vendor with another protocol
// can be added without touching the polling logic.
type Provider interface {
	Fetch(ctx context.Context, symbol string) (pgstore.Quote, error)
}

// Fields names where an upstream JSON response keeps the quote's parts, as
// dot-separated object paths such as "data.last.price".
type Fields struct {
	Price    string
	Currency string
	// Time is the path of the quote time (an RFC 3339 string or integer Unix
	// seconds); "" means the vendor sends none and the receive time is used.
	Time string
}

// HTTPProvider fetches quotes with GET from a URL template in which
// {symbol} is replaced by the (query-escaped) symbol, and reads the fields
// from the JSON response.
type HTTPProvider struct {
	client   *http.Client
	template string
	fields   Fields
	now      func() time.Time
}

// maxResponse bounds an upstream response body.
const maxResponse = 1 << 20

var _ Provider = (*HTTPProvider)(nil)

// NewHTTPProvider checks the template (absolute http(s) URL containing
// {symbol}) and the field paths. client nil means a client with no overall
// timeout: the poller bounds each request with its context.
func NewHTTPProvider(template string, f Fields, client *http.Client) (*HTTPProvider, error) {
	if !strings.Contains(template, "{symbol}") {
		return nil, fmt.Errorf("price poll url %q: must contain {symbol}", template)
	}
	u, err := url.Parse(strings.ReplaceAll(template, "{symbol}", "X"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("price poll url: want an absolute http(s) URL template")
	}
	if f.Price == "" || f.Currency == "" {
		return nil, errors.New("price poll fields: the price and currency paths are required")
	}
	if client == nil {
		client = &http.Client{}
	}
	return &HTTPProvider{client: client, template: template, fields: f, now: time.Now}, nil
}

// Fetch gets one quote. Errors never contain the URL: templates often carry
// the vendor's API key.
func (p *HTTPProvider) Fetch(ctx context.Context, symbol string) (pgstore.Quote, error) {
	raw := strings.ReplaceAll(p.template, "{symbol}", url.QueryEscape(symbol))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return pgstore.Quote{}, errors.New("build upstream request")
	}
	req.Header.Set("Accept", "application/json")
	res, err := p.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return pgstore.Quote{}, fmt.Errorf("upstream request: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxResponse+1))
	if err != nil {
		return pgstore.Quote{}, fmt.Errorf("read upstream response: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return pgstore.Quote{}, fmt.Errorf("upstream status %d", res.StatusCode)
	}
	if len(body) > maxResponse {
		return pgstore.Quote{}, fmt.Errorf("upstream response larger than %d bytes", maxResponse)
	}
	return p.parse(symbol, body)
}

func (p *HTTPProvider) parse(symbol string, body []byte) (pgstore.Quote, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return pgstore.Quote{}, fmt.Errorf("upstream response is not JSON: %w", err)
	}
	price, err := textAt(doc, p.fields.Price)
	if err != nil {
		return pgstore.Quote{}, err
	}
	currency, err := textAt(doc, p.fields.Currency)
	if err != nil {
		return pgstore.Quote{}, err
	}
	q := pgstore.Quote{Symbol: symbol}
	if q.Price, err = ParsePrice(price); err != nil {
		return q, fmt.Errorf("upstream %w", err)
	}
	if q.Currency, err = NormalizeCurrency(currency); err != nil {
		return q, fmt.Errorf("upstream %w", err)
	}
	if q.QuotedAt, err = p.quoteTime(doc, p.now()); err != nil {
		return q, fmt.Errorf("upstream %w", err)
	}
	return q, nil
}

func (p *HTTPProvider) quoteTime(doc any, now time.Time) (time.Time, error) {
	if p.fields.Time == "" {
		return CheckTickTime(now, now)
	}
	v, err := valueAt(doc, p.fields.Time)
	if err != nil {
		return time.Time{}, err
	}
	switch t := v.(type) {
	case string:
		return ParseTickTime(t, now)
	case json.Number:
		secs, err := strconv.ParseInt(t.String(), 10, 64)
		if err != nil {
			return time.Time{}, &FieldError{"timestamp", "must be an RFC 3339 string or integer Unix seconds"}
		}
		return CheckTickTime(time.Unix(secs, 0), now)
	}
	return time.Time{}, &FieldError{"timestamp", "must be an RFC 3339 string or integer Unix seconds"}
}

// textAt returns the string or number at path as text.
func textAt(doc any, path string) (string, error) {
	v, err := valueAt(doc, path)
	if err != nil {
		return "", err
	}
	switch t := v.(type) {
	case string:
		return t, nil
	case json.Number:
		return t.String(), nil
	}
	return "", fmt.Errorf("upstream field %q: want a string or number, got %s", path, kindOf(v))
}

// valueAt walks a dot-separated path of object keys.
func valueAt(doc any, path string) (any, error) {
	v := doc
	for _, key := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("upstream field %q: missing (not an object above %q)", path, key)
		}
		if v, ok = obj[key]; !ok || v == nil {
			return nil, fmt.Errorf("upstream field %q: missing", path)
		}
	}
	return v, nil
}

func kindOf(v any) string {
	switch v.(type) {
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "another type"
}
