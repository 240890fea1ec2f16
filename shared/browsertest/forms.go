package browsertest

import (
	"context"

	"github.com/chromedp/chromedp"
)

// Forms: what a person does on a server-rendered page — fill controls,
// click, submit and land on the next page.

// SetValue sets the value of the form control (input, textarea, select)
// matching the CSS selector, waiting for it to be ready. Like a paste: no
// key events.
func (tab *Tab) SetValue(sel, value string) {
	tab.t.Helper()
	tab.do("set value of "+sel, chromedp.SetValue(chromedp.CSS(sel), value))
}

// SetFiles picks the files at paths (absolute) in the file input
// matching the CSS selector, as the user's file dialog would.
func (tab *Tab) SetFiles(sel string, paths ...string) {
	tab.t.Helper()
	tab.do("set files of "+sel, chromedp.SetUploadFiles(chromedp.CSS(sel), paths))
}

// Click clicks the visible element matching the CSS selector, for
// controls that do not load another page (a checkbox, a copy button).
func (tab *Tab) Click(sel string) {
	tab.t.Helper()
	tab.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// ClickNavigate clicks the visible element matching the CSS selector (a
// link or a submit button), waits for the page it loads and returns the
// HTTP status of that document after redirects (a form's 303 included).
func (tab *Tab) ClickNavigate(sel string) int {
	tab.t.Helper()
	ctx, cancel := context.WithTimeout(tab.ctx, Timeout)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel)))
	if err != nil {
		tab.t.Fatalf("browser: click %s and wait for the page: %v", sel, err)
	}
	if resp == nil {
		tab.t.Fatalf("browser: click %s: no response", sel)
	}
	return int(resp.Status)
}
