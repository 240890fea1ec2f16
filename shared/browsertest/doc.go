// Package browsertest drives Debian's Chromium (/usr/bin/chromium, headless)
// from tests, so that what a person sees is tested in a real browser and
// can be looked at: every test gets its own tab, every wait is bounded, and
// full-page screenshots land in .run/test/screenshots/ (KURZ_SCREENSHOT_DIR
// overrides it).
//
// One browser serves the whole test binary: it starts on first use and is
// killed with the binary (the allocator sets Pdeathsig). A missing Chromium
// is installed with apt-get (Debian's chromium, as deploy/local/stack.sh
// install does); when it cannot be installed or started the test fails,
// it is never skipped.
//
// Only _test.go files import this package.
package browsertest
