// Package browsertest drives headless Chromium in tests of pages an MCP
// server serves, such as the views of MCP Apps: it finds the browser or
// skips the test, opens a tab with a fresh profile that ends with the
// test, and runs actions that fail the test naming what they did.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium returns the path of the Chromium to drive: $SPECTER_CHROMIUM,
// or chromium or chromium-browser on PATH. It skips the test under
// go test -short, and when there is none.
func Chromium(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("browsertest: the browser tests run Chromium; skipped with -short")
	}
	for _, name := range []string{os.Getenv("SPECTER_CHROMIUM"), "chromium", "chromium-browser", "/usr/bin/chromium"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("browsertest: Chromium is not installed (apt-get install chromium, or set SPECTER_CHROMIUM): this browser test does not run")
	return ""
}

// Tab starts the headless Chromium at chrome with a fresh profile and a
// window of width by height, and returns the context of its first tab.
// The browser ends with the test, and the tab's context after two
// minutes at the latest. Background networking, component updates and
// sync are off: a test reaches only the servers it starts.
func Tab(t testing.TB, chrome string, width, height int) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chrome),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(width, height),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancel()
		cancelAlloc()
	})
	return ctx
}

// Do runs browser actions, failing the test with what it did on an error.
func Do(t testing.TB, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Value runs a browser action and returns its value, failing the test
// with what it did on an error.
func Value[T any](t testing.TB, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}
