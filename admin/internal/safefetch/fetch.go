package safefetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Defaults for zero Options fields.
const (
	DefaultTimeout      = 5 * time.Second
	DefaultMaxBytes     = 1 << 20
	DefaultMaxRedirects = 3
	maxURLLen           = 2048
)

// Options tune Fetch; the zero value means the defaults.
type Options struct {
	// Timeout bounds the whole fetch: DNS, connect, TLS, redirects and body.
	Timeout time.Duration
	// MaxBytes caps the (decompressed) body.
	MaxBytes int64
	// MaxRedirects is how many redirects are followed; 0 means
	// DefaultMaxRedirects, a negative value means none.
	MaxRedirects int
	// AllowAddr replaces IsAllowed as the address policy. Tests only (to reach
	// an httptest server on loopback); production code leaves it nil.
	AllowAddr func(netip.Addr) bool
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	switch {
	case o.MaxRedirects == 0:
		o.MaxRedirects = DefaultMaxRedirects
	case o.MaxRedirects < 0:
		o.MaxRedirects = 0
	}
	if o.AllowAddr == nil {
		o.AllowAddr = IsAllowed
	}
	return o
}

// Fetch GETs rawURL and returns its body and Content-Type. Only a 200
// response is accepted. The content type is the server's claim: callers that
// need an image must check the bytes themselves.
func Fetch(ctx context.Context, rawURL string, opt Options) (body []byte, contentType string, err error) {
	opt = opt.withDefaults()
	u, err := checkURL(rawURL)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()

	client := newClient(opt)
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrBadURL, err)
	}
	req.Header.Set("User-Agent", "kurz-fetch/1")
	req.Header.Set("Accept", "image/png, image/jpeg")
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", classify(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("%w: status %d", ErrFetchFailed, resp.StatusCode)
	}
	if resp.ContentLength > opt.MaxBytes {
		return nil, "", fmt.Errorf("%w: content length %d over %d bytes", ErrTooLarge, resp.ContentLength, opt.MaxBytes)
	}
	// Read one byte past the cap to tell "exactly MaxBytes" from "more".
	body, err = io.ReadAll(io.LimitReader(resp.Body, opt.MaxBytes+1))
	if err != nil {
		return nil, "", classify(err)
	}
	if int64(len(body)) > opt.MaxBytes {
		return nil, "", fmt.Errorf("%w: body over %d bytes", ErrTooLarge, opt.MaxBytes)
	}
	return body, resp.Header.Get("Content-Type"), nil
}

// classify keeps our own sentinel when the client wrapped one, else files the
// error under ErrFetchFailed (keeping the cause for logs and errors.Is).
func classify(err error) error {
	for _, sentinel := range []error{ErrAddrNotAllowed, ErrBadURL, ErrTooLarge, ErrFetchFailed} {
		if errors.Is(err, sentinel) {
			return err
		}
	}
	return fmt.Errorf("%w: %w", ErrFetchFailed, err)
}

// checkURL accepts only absolute http/https URLs with a host.
func checkURL(raw string) (*url.URL, error) {
	if len(raw) > maxURLLen {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrBadURL, maxURLLen)
	}
	if strings.TrimSpace(raw) != raw || strings.ContainsAny(raw, " \t\r\n\\") {
		return nil, fmt.Errorf("%w: contains whitespace or backslashes", ErrBadURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadURL, err)
	}
	if err := checkParsedURL(u); err != nil {
		return nil, err
	}
	return u, nil
}

func checkParsedURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: scheme %q is not http or https", ErrBadURL, u.Scheme)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return fmt.Errorf("%w: no host", ErrBadURL)
	}
	return nil
}

// newClient builds a one-shot client whose every connection passes the
// address policy at dial time.
func newClient(opt Options) *http.Client {
	dialer := &net.Dialer{
		Timeout: opt.Timeout,
		Control: func(network, address string, _ syscall.RawConn) error {
			return checkDial(network, address, opt.AllowAddr)
		},
	}
	transport := &http.Transport{
		// No proxy, ever: through a proxy the dial check would see the proxy's
		// address instead of the target's.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    opt.Timeout,
		ResponseHeaderTimeout:  opt.Timeout,
		DisableKeepAlives:      true,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > opt.MaxRedirects {
				return fmt.Errorf("%w: more than %d redirects", ErrFetchFailed, opt.MaxRedirects)
			}
			// The target's address is checked when it is dialled.
			return checkParsedURL(req.URL)
		},
	}
}

// checkDial runs in net.Dialer.Control, after DNS resolution and before the
// connect system call, for every address tried.
func checkDial(network, address string, allow func(netip.Addr) bool) error {
	if network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("%w: network %s", ErrAddrNotAllowed, network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrAddrNotAllowed, address, err)
	}
	if !allow(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrAddrNotAllowed, ap.Addr())
	}
	return nil
}
