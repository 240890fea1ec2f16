package browsertest

import (
	"context"
	"fmt"
	"strings"

	"github.com/chromedp/chromedp"
)

// Isolated frames: Chromium runs an iframe of another site, and a
// sandboxed iframe (an opaque origin), in a process of its own, as a
// target of its own; FrameURLs and FrameText do not reach them.

// IsolatedFrameURLs lists the documents of the browser's out-of-process
// iframes whose address starts with prefix (pass the test server's base:
// the browser is shared by the binary's tests).
func (tab *Tab) IsolatedFrameURLs(prefix string) []string {
	tab.t.Helper()
	return run(tab, "list targets", func(ctx context.Context, _ *chromedp.Target) ([]string, error) {
		ts, err := chromedp.Targets(ctx)
		var urls []string
		for _, t := range ts {
			if t.Type == "iframe" && strings.HasPrefix(t.URL, prefix) {
				urls = append(urls, t.URL)
			}
		}
		return urls, err
	})
}

// IsolatedFrameText returns the visible text of the first element
// matching the CSS selector in the out-of-process iframe whose document
// is url (see IsolatedFrameURLs); ok is false when there is no such frame
// or element (yet). It attaches to the frame's target and detaches after,
// leaving the frame as it was; the frame's CSP and scripts do not matter.
func (tab *Tab) IsolatedFrameText(url, sel string) (text string, ok bool) {
	tab.t.Helper()
	ts, err := chromedp.Targets(tab.ctx)
	if err != nil {
		tab.t.Fatalf("browser: list targets: %v", err)
	}
	for _, t := range ts {
		if t.Type != "iframe" || t.URL != url {
			continue
		}
		fctx, cancel := chromedp.NewContext(tab.ctx, chromedp.WithTargetID(t.TargetID), chromedp.WithDetachOnCancel())
		var got *string
		err := bounded(func() (err error) {
			got, err = chromedp.Run(fctx, chromedp.Evaluate[*string](fmt.Sprintf(
				`(function(e){return e?e.innerText:null})(document.querySelector(%q))`, sel)))
			return err
		})
		cancel()
		if err != nil || got == nil {
			return "", false
		}
		return *got, true
	}
	return "", false
}
