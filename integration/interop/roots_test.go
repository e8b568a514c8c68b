package interop

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter/client/host"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// eventually polls cond until it holds, or fails at the test's deadline: a
// server acts on a notification in its own time, and says nothing when
// done.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	done := mcptest.Context(t).Done()
	for !cond() {
		select {
		case <-done:
			t.Fatalf("the test's deadline came before %s", what)
		case <-time.After(25 * time.Millisecond): // each try asks the server
		}
	}
}

// TestRootsChange: server-filesystem serves the directories the client's
// roots name. The roots are the Host's (a default for its servers); when
// they change, the Host says so and the server asks again and moves to
// the new directory.
func TestRootsChange(t *testing.T) {
	c := ctx(t)
	a, b := t.TempDir(), t.TempDir()
	var roots atomic.Pointer[[]mcp.Root]
	use := func(dir string) {
		r := []mcp.Root{{URI: "file://" + dir, Name: filepath.Base(dir)}}
		roots.Store(&r)
	}
	use(a)
	h, err := host.New(c, []host.Server{{Name: "fs", Transport: stdio(t, nil, filesystem)}}, &host.Options{
		Info:  mcp.Implementation{Name: "interop-host", Version: "1.0.0"},
		Roots: func(context.Context) ([]mcp.Root, error) { return *roots.Load(), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	if caps := h.Client("fs").Capabilities(); caps.Roots == nil || !caps.Roots.ListChanged {
		t.Fatalf("roots declared as %+v, want listChanged", caps.Roots)
	}
	allowed := func() string {
		res, err := h.CallTool(c, "fs.list_allowed_directories", nil)
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Fatalf("list_allowed_directories: %+v %v", res, err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	eventually(t, "the server serves the first root", func() bool { return strings.Contains(allowed(), a) })
	use(b)
	if err := h.RootsChanged(c); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the server serves the new root", func() bool {
		got := allowed()
		return strings.Contains(got, b) && !strings.Contains(got, a)
	})
}
