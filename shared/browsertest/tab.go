package browsertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Tab is one browser tab of one test; it closes when the test ends. Its
// methods fail the test on any error and bound every step by Timeout.
type Tab struct {
	t   testing.TB
	ctx context.Context
}

// NewTab opens a tab in the binary's browser, starting the browser on
// first use. A missing or broken Chromium fails t.
func NewTab(t testing.TB) *Tab {
	t.Helper()
	root, err := browser()
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	ctx, cancel := chromedp.NewContext(root)
	t.Cleanup(cancel) // closes the tab
	// The first Do attaches the tab and binds the tab's life to the
	// context it gets, so it gets the tab's own; the wait is bounded here.
	if err := bounded(func() error { return chromedp.Do(ctx) }); err != nil {
		t.Fatalf("browser: open a tab: %v", err)
	}
	return &Tab{t: t, ctx: ctx}
}

// run runs a with the step timeout; a derived context limits this call
// only, the tab stays open.
func run[T any](tab *Tab, what string, a chromedp.Action[T]) T {
	tab.t.Helper()
	ctx, cancel := context.WithTimeout(tab.ctx, Timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		tab.t.Fatalf("browser: %s: %v", what, err)
	}
	return v
}

func (tab *Tab) do(what string, a chromedp.Action[chromedp.Void]) {
	tab.t.Helper()
	run(tab, what, a)
}

// Open navigates to url, waits for the page (and its frames and images)
// to load, and returns the HTTP status of the document after redirects.
func (tab *Tab) Open(url string) int {
	tab.t.Helper()
	resp := run(tab, "open "+url, chromedp.NavigateResponse(url))
	if resp == nil {
		tab.t.Fatalf("browser: open %s: no response", url)
	}
	return int(resp.Status)
}

// Start navigates to url without waiting for the load event: for pages
// whose load never ends by design (a frame that never answers).
func (tab *Tab) Start(url string) {
	tab.t.Helper()
	tab.do("start "+url, chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		res, err := cdp.Call(ctx, tt, page.Navigate, page.NavigateParams{URL: url})
		if err == nil && res.ErrorText != "" {
			err = fmt.Errorf("%s", res.ErrorText)
		}
		return err
	}))
}

// WaitVisible waits until an element matching the CSS selector is visible.
func (tab *Tab) WaitVisible(sel string) {
	tab.t.Helper()
	tab.do("wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
}

// Text returns the visible text of the first element matching the CSS
// selector, waiting for it to be visible.
func (tab *Tab) Text(sel string) string {
	tab.t.Helper()
	return run(tab, "text of "+sel, chromedp.Text(chromedp.CSS(sel)))
}

// Attr returns attribute name of the first element matching the CSS
// selector ("" when it has none).
func (tab *Tab) Attr(sel, name string) string {
	tab.t.Helper()
	return run(tab, "attribute "+name+" of "+sel, chromedp.AttributeValue(chromedp.CSS(sel), name, chromedp.NodeReady)).Value
}

// Eval evaluates a JavaScript expression in the page and decodes its
// value into T.
func Eval[T any](tab *Tab, expr string) T {
	tab.t.Helper()
	return run(tab, "evaluate "+expr, chromedp.Evaluate[T](expr))
}

// URL is the address of the top-level document now shown (after
// redirects and script navigations).
func (tab *Tab) URL() string {
	tab.t.Helper()
	return run(tab, "location", chromedp.Location())
}

// WaitURL waits up to d (at most Timeout) until the top-level document is
// want, and returns how long that took; on timeout the test fails with
// the URL shown instead.
func (tab *Tab) WaitURL(want string, d time.Duration) time.Duration {
	tab.t.Helper()
	start := time.Now()
	deadline := start.Add(min(d, Timeout))
	for {
		got := tab.URL()
		if got == want {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			tab.t.Fatalf("browser: after %v the page is %q, want %q", d, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Viewport sets the page's viewport size in CSS pixels (the window is
// 1024x768 otherwise), e.g. a phone's width.
func (tab *Tab) Viewport(width, height int64) {
	tab.t.Helper()
	tab.do("viewport", chromedp.EmulateViewport(width, height))
}
