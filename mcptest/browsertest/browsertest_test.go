package browsertest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/specter-mcp/specter/mcptest/browsertest"
)

// A page's script runs in the tab, and Value reads what it did.
func TestTabRunsAPage(t *testing.T) {
	chrome := browsertest.Chromium(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `<!DOCTYPE html><title>t</title><p id="out"></p><script>document.getElementById("out").textContent = "ran " + (2 + 3)</script>`)
	}))
	defer srv.Close()
	ctx := browsertest.Tab(t, chrome, 800, 600)
	browsertest.Do(t, ctx, "open the page", chromedp.Navigate(srv.URL), chromedp.WaitVisible(`#out`))
	if got := browsertest.Value(t, ctx, "the page's text", chromedp.Text(`#out`)); got != "ran 5" {
		t.Errorf("the script wrote %q, want %q", got, "ran 5")
	}
}
