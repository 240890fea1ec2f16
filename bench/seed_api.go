package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// apiClient calls the admin API with a bearer key.
type apiClient struct {
	base string
	key  string
	http *http.Client
}

func newAPIClient(base, key string, conns int) *apiClient {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = conns
	return &apiClient{base: strings.TrimSuffix(base, "/"), key: key, http: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// call sends body (nil for none) and decodes the JSON answer into out; an
// answer with error != 0 is an error.
func (c *apiClient) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode %s body: %w", path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return fmt.Errorf("request %s: %w", path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	var env struct {
		Error   int    `json:"error"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("%s %s: status %d, not JSON: %.200s", method, path, resp.StatusCode, raw)
	}
	if env.Error != 0 || resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: status %d: %s", method, path, resp.StatusCode, env.Message)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("decode %s: %w", path, err)
		}
	}
	return nil
}

// seedAPI creates the population through the public API, as a customer
// would: domains, pixels, then links with c.concurrency requests in flight.
// Expiring links are created first with an expiry c.expireAfter ahead (the
// API refuses past ones); seed returns only once that time has passed.
// It returns the key owner's user id.
func seedAPI(ctx context.Context, c *seedConfig, entries []entry) (int64, error) {
	api := newAPIClient(c.adminURL, c.key, c.concurrency)
	var acct struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if err := api.call(ctx, http.MethodGet, "/api/account", nil, &acct); err != nil {
		return 0, err
	}
	for _, h := range c.hosts {
		err := api.call(ctx, http.MethodPost, "/api/domain/add", map[string]string{"domain": "https://" + h}, nil)
		if err != nil && !strings.Contains(err.Error(), "409") {
			return 0, err
		}
	}
	var pixelIDs []int64
	for _, p := range [][2]string{{"analyticspixel", "G-BENCH12345"}, {"socialnetworkpixel", "123456789012345"}} {
		var out struct {
			ID int64 `json:"id"`
		}
		if err := api.call(ctx, http.MethodPost, "/api/pixel/add", map[string]string{"type": p[0], "name": "bench " + p[0], "tag": p[1]}, &out); err != nil {
			return 0, err
		}
		pixelIDs = append(pixelIDs, out.ID)
	}
	expiry := time.Now().UTC().Add(c.expireAfter).Truncate(time.Second).Add(time.Second)
	order := make([]int, 0, len(entries))
	for i, e := range entries { // expiring links first: their clock starts now
		if e.Kind == KindExpired {
			order = append(order, i)
		}
	}
	for i, e := range entries {
		if e.Kind != KindExpired {
			order = append(order, i)
		}
	}
	if err := postLinks(ctx, api, c.concurrency, entries, order, pixelIDs, expiry); err != nil {
		return 0, err
	}
	if d := time.Until(expiry); d > 0 {
		select {
		case <-time.After(d + time.Second):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	return acct.Data.ID, nil
}

func postLinks(ctx context.Context, api *apiClient, conc int, entries []entry, order []int, pixelIDs []int64, expiry time.Time) error {
	g, gctx := errgroup.WithContext(ctx)
	next := make(chan int)
	g.Go(func() error {
		defer close(next)
		for _, i := range order {
			select {
			case next <- i:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for range max(conc, 1) {
		g.Go(func() error {
			for i := range next {
				if err := api.call(gctx, http.MethodPost, "/api/url/add", addBody(i, entries[i], pixelIDs, expiry), nil); err != nil {
					return fmt.Errorf("link %d (%s): %w", i, entries[i].Alias, err)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// addBody is the POST /api/url/add payload for entry i (spec 4.6).
func addBody(i int, e entry, pixelIDs []int64, expiry time.Time) map[string]any {
	s := specFor(i, e.Kind)
	b := map[string]any{"url": s.LongURL, "custom": e.Alias}
	if e.Host != "" {
		b["domain"] = "https://" + e.Host
	}
	if len(s.Geo) > 0 {
		b["geotarget"] = s.Geo
		b["devicetarget"] = s.Device
		b["languagetarget"] = s.Language
	}
	if s.Password != "" {
		b["password"] = s.Password
	}
	if s.Expired {
		b["expiry"] = expiry.Format("2006-01-02 15:04:05")
	}
	if s.Pixels {
		b["pixels"] = pixelIDs
	}
	return b
}
