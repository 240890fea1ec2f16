package browsertest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// FrameURLs lists the documents committed in the tab's iframes (depth
// first). A frame that failed to load shows Chromium's error document.
// Frames of another site run in their own process and are not listed;
// loopback hosts on different ports are one site.
func (tab *Tab) FrameURLs() []string {
	tab.t.Helper()
	var urls []string
	for _, f := range tab.frames() {
		urls = append(urls, f.URL+f.URLFragment)
	}
	return urls
}

func (tab *Tab) frames() []*cdp.Frame {
	tab.t.Helper()
	tree := run(tab, "frame tree", func(ctx context.Context, t *chromedp.Target) (*page.FrameTree, error) {
		res, err := cdp.Call(ctx, t, page.GetFrameTree, cdp.Empty{})
		return res.FrameTree, err
	})
	var out []*cdp.Frame
	var walk func(*page.FrameTree)
	walk = func(n *page.FrameTree) {
		for _, c := range n.ChildFrames {
			out = append(out, c.Frame)
			walk(c)
		}
	}
	if tree != nil {
		walk(tree)
	}
	return out
}

// FrameText returns the visible text of the first element matching the
// CSS selector in the iframe whose document is url (see FrameURLs). It
// reads through an isolated world, so the frame's own CSP and scripts do
// not matter.
func (tab *Tab) FrameText(url, sel string) string {
	tab.t.Helper()
	var id cdp.FrameID
	for _, f := range tab.frames() {
		if f.URL+f.URLFragment == url {
			id = f.ID
		}
	}
	if id == "" {
		tab.t.Fatalf("browser: no frame shows %s; frames: %q", url, tab.FrameURLs())
	}
	expr := fmt.Sprintf(`(function(e){return e?e.innerText:null})(document.querySelector(%q))`, sel)
	raw := run(tab, "text of "+sel+" in "+url, func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		world, err := cdp.Call(ctx, t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: id, WorldName: "browsertest"})
		if err != nil {
			return nil, err
		}
		byValue := true
		res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{
			Expression: expr, ContextID: world.ExecutionContextID, ReturnByValue: &byValue,
		})
		if err != nil {
			return nil, err
		}
		if res.ExceptionDetails != nil {
			return nil, fmt.Errorf("%s", res.ExceptionDetails.Text)
		}
		return res.Result.Value, nil
	})
	var text *string
	if err := json.Unmarshal(raw, &text); err != nil || text == nil {
		tab.t.Fatalf("browser: no %s in the frame %s (%s)", sel, url, raw)
	}
	return *text
}
