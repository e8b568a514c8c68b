package specter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
	"github.com/specter-mcp/specter/principal"
)

// tagKey is what tagging puts on a request's context.
type tagKey struct{}

// tagging is net/http middleware that puts the request's X-Tag header on
// its context, as request-id or tenant middleware does.
func tagging(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tagKey{}, r.Header.Get("X-Tag"))))
	})
}

// sees says what ctx carries from the HTTP middleware: tagging's tag,
// and the principal and claims auth put there.
func sees(ctx context.Context) string {
	tag, _ := ctx.Value(tagKey{}).(string)
	var id, sub string
	if p, ok := principal.FromContext(ctx); ok {
		id = p.ID
	}
	if c, ok := auth.ClaimsFrom(ctx); ok {
		sub = c.Subject
	}
	return "tag=" + tag + " principal=" + id + " sub=" + sub
}

// seeingRouter answers with what connect, a handler, a NoReply's work and
// a completer see of the HTTP request's context.
func seeingRouter() *specter.Router {
	r := specter.NewRouter("values", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Connect(func(c *specter.Context) error {
		c.Assign("connect", sees(c))
		return nil
	})
	seen := func(c *specter.Context) map[string]string {
		connect, _ := specter.Assigned[string](c, "connect")
		return map[string]string{"connect": connect, "handler": sees(c)}
	}
	r.Tool("now", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		return specter.Reply(seen(c))
	}, specter.Description("What a handler sees"))
	later := func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		m := seen(c)
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			m["work"] = sees(s)
			return specter.Reply(m)
		})
	}
	r.Tool("later", later, specter.Description("What the work of a NoReply sees"))
	r.Tool("task", later, specter.Description("What the work of a task sees"), specter.Tasks(specter.TaskOptional))
	r.Prompt("greet", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("Hello, " + p.String("name"))
	}, specter.Description("Greet"), params.String("name"),
		specter.Complete("name", specter.CompleterFunc(func(ctx context.Context, _ string, _ map[string]string) ([]string, error) {
			return []string{sees(ctx)}, nil
		})))
	return r
}

// resource is the audience of the tests' tokens.
const resource = "https://mcp.example.com/mcp"

// TestContextValueFromHTTPMiddleware: what net/http or Echo middleware
// put on the request (a value, and auth's principal and claims) reaches
// connect, the handler, the work of a NoReply and a completer, through
// *Context and *Stream, in a session and on the 2026-07-28 wire, for
// every request of a session (not only the one that opened it).
func TestContextValueFromHTTPMiddleware(t *testing.T) {
	iss := auth.NewDevIssuer(resource)
	wirings := []struct {
		name  string
		serve func(t *testing.T, r *specter.Router) *httptest.Server
	}{
		{"net/http", func(t *testing.T, r *specter.Router) *httptest.Server {
			v, err := auth.NewVerifier(iss.Config())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = v.Close() })
			srv, _ := mcptest.NewServer(t, tagging(v.Middleware(r.Handler())), "/mcp")
			return srv
		}},
		{"echo group with auth.JWT", func(t *testing.T, r *specter.Router) *httptest.Server {
			e := echo.New()
			r.Mount(e.Group("/mcp", echo.WrapMiddleware(tagging), auth.JWT(iss.Config())))
			srv := httptest.NewServer(e)
			t.Cleanup(srv.Close)
			return srv
		}},
	}
	for _, w := range wirings {
		for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
			t.Run(w.name+"/"+version, func(t *testing.T) {
				r := seeingRouter()
				t.Cleanup(func() { shutdown(t, r) })
				srv := w.serve(t, r)
				header := http.Header{"Authorization": {"Bearer " + iss.Token("ada")}}
				var (
					caller   mcptest.Caller
					complete func(ctx context.Context, p map[string]any) (*mcptest.Response, error)
				)
				if version == mcp.Version20260728 {
					c := mcptest.NewStatelessClient(srv.URL + "/mcp")
					c.HTTP, c.Header = srv.Client(), header
					caller, complete = c, func(ctx context.Context, p map[string]any) (*mcptest.Response, error) {
						return c.Call(ctx, mcp.MethodComplete, p)
					}
				} else {
					c := mcptest.NewClient(srv.URL + "/mcp")
					c.HTTP, c.Header = srv.Client(), header
					header.Set("X-Tag", "initialize")
					if _, err := c.Initialize(t.Context(), version); err != nil {
						t.Fatal(err)
					}
					caller, complete = c, func(ctx context.Context, p map[string]any) (*mcptest.Response, error) {
						return c.Call(ctx, mcp.MethodComplete, p)
					}
				}
				for _, tool := range []string{"now", "later"} {
					header.Set("X-Tag", tool)
					res, _, err := caller.CallTool(t.Context(), tool, map[string]any{})
					if err != nil {
						t.Fatalf("%s: %v", tool, err)
					}
					var got map[string]string
					if err := json.Unmarshal(res.StructuredContent, &got); err != nil {
						t.Fatalf("%s: %v: %s", tool, err, res.StructuredContent)
					}
					want := "tag=" + tool + " principal=ada sub=ada"
					places := []string{"connect", "handler"}
					if tool == "later" {
						places = append(places, "work")
					}
					for _, place := range places {
						if got[place] != want {
							t.Errorf("%s: %s sees %q, want %q", tool, place, got[place], want)
						}
					}
				}
				if sc, ok := caller.(*mcptest.Client); ok {
					header.Set("X-Tag", "task")
					if got, want := sessionTask(t, sc, "task"), "tag=task principal=ada sub=ada"; got["work"] != want || got["handler"] != want {
						t.Errorf("a task's handler and work see %q, want %q", got, want)
					}
				}
				header.Set("X-Tag", "complete")
				resp, err := complete(t.Context(), map[string]any{
					"ref": map[string]any{"type": "ref/prompt", "name": "greet"}, "argument": map[string]any{"name": "name", "value": ""}})
				var cr mcp.CompleteResult
				if err == nil {
					err = resp.Decode(&cr)
				}
				if err != nil {
					t.Fatal(err)
				}
				if want := "tag=complete principal=ada sub=ada"; len(cr.Completion.Values) != 1 || cr.Completion.Values[0] != want {
					t.Errorf("the completer sees %q, want [%q]", cr.Completion.Values, want)
				}
			})
		}
	}
}

// sessionTask calls tool as a task in a session and returns its
// structured result, which tasks/result waits for.
func sessionTask(t *testing.T, c *mcptest.Client, tool string) map[string]string {
	t.Helper()
	resp, err := c.Call(t.Context(), mcp.MethodToolsCall, map[string]any{"name": tool, "arguments": map[string]any{}, "task": map[string]any{"ttl": 60000}})
	var created mcp.CreateTaskResult
	if err == nil {
		err = resp.Decode(&created)
	}
	if err != nil || created.Task == nil {
		t.Fatalf("%s as a task: %v %+v", tool, err, created)
	}
	if resp, err = c.Call(t.Context(), mcp.MethodTasksResult, map[string]any{"taskId": created.Task.TaskID}); err != nil {
		t.Fatal(err)
	}
	var res mcptest.ToolResult
	if err := resp.Decode(&res); err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal(res.StructuredContent, &got); err != nil {
		t.Fatalf("%s: %v: %s", tool, err, res.StructuredContent)
	}
	return got
}

func shutdown(t testing.TB, r *specter.Router) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.Shutdown(ctx); err != nil {
		t.Error(err)
	}
}

// waiting is a router whose tool "wait" answers with NoReply; its work
// reports what it sees of the request on started, then waits to be
// cancelled or released and says which on ended.
type waiting struct {
	r                *specter.Router
	started, ended   chan string
	release, dropped chan struct{}
}

func newWaiting() *waiting {
	w := &waiting{started: make(chan string, 1), ended: make(chan string, 1), release: make(chan struct{}, 1), dropped: make(chan struct{}, 1)}
	w.r = specter.NewRouter("cancel", "1.0.0", specter.Logger(zerolog.Nop()),
		specter.OnDisconnect(func(*specter.Context) { w.dropped <- struct{}{} }))
	w.r.Tool("wait", func(_ specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			w.started <- sees(s)
			select {
			case <-s.Done():
				w.ended <- "cancelled: " + s.Err().Error()
			case <-w.release:
				w.ended <- "running: " + fmt.Sprint(s.Err())
			}
			return specter.Reply("done")
		})
	}, specter.Description("Wait to be cancelled or released"))
	return w
}

// run posts a tools/call of "wait" with the id n and X-Tag tag, checks
// that the work sees the tag, and returns what ends the POST.
func (w *waiting) run(t *testing.T, ctx context.Context, post func(context.Context, jsonrpc.ID) error, header http.Header, n int, tag string) <-chan error {
	t.Helper()
	header.Set("X-Tag", tag)
	done := make(chan error, 1)
	go func() { done <- post(ctx, mcptest.ID(n)) }()
	if got, want := <-w.started, "tag="+tag+" principal= sub="; got != want {
		t.Errorf("%s: the work sees %q, want %q", tag, got, want)
	}
	return done
}

// TestContextCancellationFollowsTheRequest: the work of a NoReply sees the
// values of its request, yet its context ends as MCP says, not with the
// POST: in a session when the client cancels the request or ends the
// session, while a dropped connection leaves it running (the client may
// resume); on the 2026-07-28 wire when the client closes the stream.
func TestContextCancellationFollowsTheRequest(t *testing.T) {
	t.Run("session", func(t *testing.T) {
		w := newWaiting()
		t.Cleanup(func() { shutdown(t, w.r) })
		_, c := mcptest.NewServer(t, tagging(w.r.Handler()), "/mcp")
		if _, err := c.Initialize(t.Context(), mcp.Version20251125); err != nil {
			t.Fatal(err)
		}
		post := func(ctx context.Context, id jsonrpc.ID) error {
			body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"wait","arguments":{}}}`, id)
			_, err := c.PostRaw(ctx, body, id)
			return err
		}

		dropCtx, drop := context.WithCancel(t.Context())
		done := w.run(t, dropCtx, post, c.Header, 1, "drop")
		drop()
		<-w.dropped // the router saw the connection end
		<-done
		w.release <- struct{}{}
		if got := <-w.ended; got != "running: <nil>" {
			t.Errorf("after the connection dropped the work is %q, want it running", got)
		}

		done = w.run(t, t.Context(), post, c.Header, 2, "cancel")
		if _, err := c.Notify(t.Context(), mcp.NotificationCancelled, map[string]any{"requestId": 2}); err != nil {
			t.Fatal(err)
		}
		if got := <-w.ended; got != "cancelled: context canceled" {
			t.Errorf("after notifications/cancelled the work is %q", got)
		}
		<-done

		done = w.run(t, t.Context(), post, c.Header, 3, "delete")
		if _, err := c.Delete(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := <-w.ended; got != "cancelled: context canceled" {
			t.Errorf("after the session ended the work is %q", got)
		}
		<-done
	})
	t.Run(mcp.Version20260728, func(t *testing.T) {
		w := newWaiting()
		t.Cleanup(func() { shutdown(t, w.r) })
		srv, _ := mcptest.NewServer(t, tagging(w.r.Handler()), "/mcp")
		c := mcptest.NewStatelessClient(srv.URL + "/mcp")
		c.HTTP = srv.Client()
		post := func(ctx context.Context, id jsonrpc.ID) error {
			req := c.Request(mcp.MethodToolsCall, map[string]any{"name": "wait", "arguments": map[string]any{}})
			req.ID = id
			_, err := c.Send(ctx, req)
			return err
		}
		closeCtx, closeStream := context.WithCancel(t.Context())
		done := w.run(t, closeCtx, post, c.Header, 1, "close")
		closeStream()
		if got := <-w.ended; got != "cancelled: context canceled" {
			t.Errorf("after the client closed the stream the work is %q", got)
		}
		<-done
	})
}
