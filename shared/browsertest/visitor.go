package browsertest

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Who the tab says it is: tests of per-visitor behaviour (device rules,
// the country header a trusted proxy adds) visit as several people from
// one browser.

// SetUserAgent makes the tab send ua as its User-Agent from now on.
func (tab *Tab) SetUserAgent(ua string) {
	tab.t.Helper()
	tab.do("set the user agent", chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tt, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua})
		return err
	}))
}

// SetHeaders makes the tab add headers to every request from now on,
// replacing those set before (none: nil).
func (tab *Tab) SetHeaders(headers map[string]string) {
	tab.t.Helper()
	h := network.Headers{}
	for k, v := range headers {
		h[k] = v
	}
	tab.do("set request headers", chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tt, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tt, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: h})
		return err
	}))
}
