package safefetch

import (
	"context"
	"fmt"
	"net/http"
)

// Headers returns the final status and headers rawURL answers with, after
// redirects, without reading a body. It sends HEAD first and falls back to
// GET when HEAD gets a status of 400 or more (many sites refuse HEAD with
// 403, 404 or 405 but answer GET); the GET body is closed unread. Every
// final status is returned, not only 200: an error page's headers still say
// how the site behaves. The address policy, redirect limit and Timeout (for
// both requests together) are Fetch's; MaxBytes does not apply.
func Headers(ctx context.Context, rawURL string, opt Options) (status int, header http.Header, err error) {
	opt = opt.withDefaults()
	u, err := checkURL(rawURL)
	if err != nil {
		return 0, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	client := newClient(opt)
	defer client.CloseIdleConnections()
	for _, method := range []string{http.MethodHead, http.MethodGet} {
		req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
		if err != nil {
			return 0, nil, fmt.Errorf("%w: %w", ErrBadURL, err)
		}
		req.Header.Set("User-Agent", "kurz-fetch/1")
		req.Header.Set("Accept", "text/html, */*;q=0.5")
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, classify(err)
		}
		resp.Body.Close()
		status, header = resp.StatusCode, resp.Header
		if status < 400 {
			break
		}
	}
	return status, header, nil
}
