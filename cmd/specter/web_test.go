package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/specter-mcp/specter/mcptest/browsertest"
)

// TestInspectWeb drives the web inspector of the example app (over
// stdio) in headless Chromium: the lists, a tool called through the form
// generated from its input schema with a progress bar and streamed logs,
// an elicitation answered in the page, a UI resource rendered in a
// sandboxed iframe, in one era and then, switched in the page, in the
// other. A screenshot is kept as a test artefact.
func TestInspectWeb(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built command and a browser")
	}
	chrome := browsertest.Chromium(t)
	url := startWeb(t, []string{"SPECTER_USER=ultra"}, "inspect", "--web", "--open=false", "--era", "stateless", "--", appBin, "-stdio")
	ctx := browsertest.Tab(t, chrome, 1400, 1000)
	browsertest.Do(t, ctx, "open the inspector", chromedp.Navigate(url))

	for i, era := range []string{"stateless", "session"} {
		if i > 0 {
			browsertest.Do(t, ctx, "switch the era", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById("era"); s.value = "`+era+`"; s.dispatchEvent(new Event("change")) })()`))
		}
		want := map[string]string{"stateless": "2026-07-28", "session": "2025-11-25"}[era]
		got := browsertest.Value(t, ctx, "connect in "+era, chromedp.Poll[string](`inspector.connected && inspector.inventory.protocolVersion === "`+want+`" && [...document.querySelectorAll("#tools li")].map(li => li.dataset.name).join(",")`))
		for _, tool := range []string{"foo", "get_study", "long_task", "whoami", "list_studies"} {
			if !strings.Contains(got, tool) {
				t.Errorf("%s: the tool list %q lacks %s", era, got, tool)
			}
		}
		if n := browsertest.Value(t, ctx, "count resources", chromedp.Evaluate[int](`document.querySelectorAll("#resources li").length`)); n != 122 {
			t.Errorf("%s: %d resources listed, want 122 (every page)", era, n)
		}

		// A form call with progress and logs.
		logsBefore := browsertest.Value(t, ctx, "count logs", chromedp.Evaluate[int](`inspector.logs`))
		browsertest.Do(t, ctx, "call long_task through its form",
			chromedp.Click(`#tools li[data-name="long_task"]`),
			chromedp.SetValue(`#call-form input[name="steps"]`, "3"),
			chromedp.Click(`#run`),
		)
		res := browsertest.Value(t, ctx, "long_task's result", chromedp.Poll[string](`inspector.result && document.getElementById("result").textContent`))
		if !strings.Contains(res, `"steps": 3`) {
			t.Errorf("%s: long_task's result %q", era, res)
		}
		bar := browsertest.Value(t, ctx, "the progress bar", chromedp.Evaluate[string](`(() => { const b = document.getElementById("progress"); return b.value + "/" + b.max + " " + inspector.progress.length + " " + document.getElementById("progress-text").textContent })()`))
		if bar != "3/3 3 3/3 step 3 of 3" {
			t.Errorf("%s: the progress bar shows %q, want 3/3 after 3 notifications", era, bar)
		}
		logs := browsertest.Value(t, ctx, "the logs", chromedp.Poll[string](`inspector.logs >= `+strconv.Itoa(logsBefore+3)+` && document.getElementById("logs").textContent`))
		if !strings.Contains(logs, "info: long_task finished step 3 of 3") {
			t.Errorf("%s: the log shows %q", era, logs)
		}

		// An elicitation answered in the page.
		browsertest.Do(t, ctx, "call whoami",
			chromedp.Click(`#tools li[data-name="whoami"]`),
			chromedp.Click(`#run`),
			chromedp.WaitVisible(`#elicit-fields input[name="name"]`),
		)
		if msg := browsertest.Value(t, ctx, "the question", chromedp.Text(`#elicit-message`)); msg != "What is your name?" {
			t.Errorf("%s: the dialog asks %q", era, msg)
		}
		browsertest.Do(t, ctx, "answer the question",
			chromedp.SendKeys(`#elicit-fields input[name="name"]`, "Ada "+era),
			chromedp.Click(`#elicit-accept`),
		)
		res = browsertest.Value(t, ctx, "whoami's result", chromedp.Poll[string](`inspector.result && document.getElementById("result").textContent`))
		if res != "Hello, Ada "+era+"!" {
			t.Errorf("%s: whoami's result %q", era, res)
		}
	}

	// A tool with a UI: the view, in a sandboxed iframe, is initialized
	// by the page as its MCP Apps host and gets the tool's result.
	browsertest.Do(t, ctx, "call list_studies",
		chromedp.Click(`#tools li[data-name="list_studies"]`),
		chromedp.SetValue(`#call-form [name="status"]`, "recruiting"),
		chromedp.Click(`#run`),
		chromedp.WaitVisible(`#app iframe.app`),
	)
	host := browsertest.Value(t, ctx, "the view's handshake", chromedp.Poll[string](`inspector.app.sent.includes("ui/notifications/tool-result") && JSON.stringify(inspector.app)`))
	if !strings.Contains(host, `"initialized":["ui://studies/dashboard"]`) || !strings.Contains(host, `"ui/notifications/tool-input","ui/notifications/tool-result"`) {
		t.Errorf("the view and its host: %s", host)
	}
	// The screenshot shows the view with the tool's result in it.
	shot := browsertest.Value(t, ctx, "screenshot", chromedp.FullScreenshot(100))

	// A resource read, and a UI resource in a sandboxed iframe.
	browsertest.Do(t, ctx, "read a study", chromedp.Click(`#resources li[data-name="my_app://studies/042"]`), chromedp.WaitVisible(`#resource pre.contents`))
	if text := browsertest.Value(t, ctx, "the study", chromedp.Text(`#resource pre.contents`)); !strings.Contains(text, `"id": "042"`) {
		t.Errorf("study 042 reads %q", text)
	}
	browsertest.Do(t, ctx, "open the dashboard resource", chromedp.Click(`#resources li[data-name="ui://studies/dashboard"]`), chromedp.WaitVisible(`iframe.app`))
	sandbox := browsertest.Value(t, ctx, "the iframe", chromedp.Evaluate[string](`document.querySelector("iframe.app").getAttribute("sandbox") + " " + document.querySelector("iframe.app").srcdoc.length`))
	if !strings.HasPrefix(sandbox, "allow-scripts allow-forms ") || strings.HasSuffix(sandbox, " 0") {
		t.Errorf("the UI resource's iframe: sandbox and length %q", sandbox)
	}
	if e := browsertest.Value(t, ctx, "page errors", chromedp.Evaluate[string](`inspector.error || ""`)); e != "" {
		t.Errorf("the page reported %q", e)
	}

	path := filepath.Join(t.ArtifactDir(), "inspector.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// startWeb runs specter inspect --web until the test ends and returns the
// inspector's URL, read from its output.
func startWeb(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(specterBin, args...)
	cmd.Env = hermetic(t, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); err != nil {
			t.Errorf("inspect --web after Ctrl-C: %v", err)
		}
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, url, ok := strings.Cut(sc.Text(), " at "); ok {
			go func() {
				for sc.Scan() {
				}
			}()
			return strings.TrimSpace(url)
		}
	}
	t.Fatal("inspect --web printed no address")
	return ""
}
