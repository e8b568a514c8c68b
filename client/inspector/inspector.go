package inspector

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

//go:embed assets
var assets embed.FS

// Header must be set on the page's requests that act.
const Header = "X-Specter-Inspector"

// maxBody bounds a request's body.
const maxBody = 4 << 20

// Config is the server an Inspector inspects.
type Config struct {
	// Connect connects to the server with opts, which carry the
	// inspector's handlers and the pinned protocol version ("" to
	// negotiate). Each era switch connects anew; the inspector closes
	// the clients it no longer uses.
	Connect func(ctx context.Context, opts client.Options) (*client.Client, error)
	// Target names the server in the page, such as its URL.
	Target string
}

// Inspector is the web inspector: an http.Handler serving the page and
// its API for one server, with one connection at a time shared by every
// page open on it.
type Inspector struct {
	cfg    Config
	static http.Handler
	mux    *http.ServeMux
	events *hub

	mu     sync.Mutex
	c      *client.Client
	closed bool

	nextID  atomic.Int64
	pending sync.Map // elicitation id → chan *mcp.ElicitResult
}

// New returns an Inspector of the server cfg connects to. It connects
// when the page asks; Close ends the connection.
func New(cfg Config) *Inspector {
	sub, _ := fs.Sub(assets, "assets")
	in := &Inspector{cfg: cfg, static: http.FileServerFS(sub), events: newHub()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", in.page)
	mux.Handle("GET /assets/", http.StripPrefix("/assets", in.static))
	mux.HandleFunc("GET /api/events", in.stream)
	mux.HandleFunc("POST /api/connect", in.act(in.connect))
	mux.HandleFunc("POST /api/call", in.act(in.call))
	mux.HandleFunc("POST /api/read", in.act(in.read))
	mux.HandleFunc("POST /api/prompt", in.act(in.prompt))
	mux.HandleFunc("POST /api/elicit", in.act(in.answer))
	in.mux = mux
	return in
}

func (in *Inspector) ServeHTTP(w http.ResponseWriter, r *http.Request) { in.mux.ServeHTTP(w, r) }

// Close ends the connection to the server and the page's event streams.
func (in *Inspector) Close() error {
	in.mu.Lock()
	c := in.c
	in.c, in.closed = nil, true
	in.mu.Unlock()
	in.events.close()
	if c != nil {
		return c.Close(context.Background())
	}
	return nil
}

func (in *Inspector) page(w http.ResponseWriter, r *http.Request) {
	b, err := assets.ReadFile("assets/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	_, _ = w.Write(b)
}

// apiError is an answer that failed, as the page shows it.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

// act wraps an API handler: the request must come from the page (its
// header, and no other origin), its JSON body is decoded into the
// handler's input, and the handler's output or error is the JSON answer.
func (in *Inspector) act(h func(ctx context.Context, body json.RawMessage) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(Header) == "" {
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "missing the " + Header + " header"})
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			if u, err := url.Parse(o); err != nil || u.Host != r.Host {
				writeJSON(w, http.StatusForbidden, map[string]string{"error": "another origin may not use the inspector"})
				return
			}
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": err.Error()})
			return
		}
		if len(body) == 0 {
			body = json.RawMessage("{}")
		}
		out, err := h(r.Context(), body)
		var ae *apiError
		switch {
		case err == nil:
			writeJSON(w, http.StatusOK, out)
		case errors.As(err, &ae):
			writeJSON(w, ae.status, map[string]string{"error": ae.msg})
		default:
			// The server's answer, an error; the request itself was fine.
			writeJSON(w, http.StatusOK, map[string]string{"error": err.Error()})
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func decode(body json.RawMessage, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return &apiError{http.StatusBadRequest, "bad request: " + err.Error()}
	}
	return nil
}

// client is the connection, connecting (negotiating) on first use.
func (in *Inspector) client(ctx context.Context) (*client.Client, error) {
	in.mu.Lock()
	c := in.c
	in.mu.Unlock()
	if c != nil {
		return c, nil
	}
	if _, err := in.connect(ctx, json.RawMessage(`{}`)); err != nil {
		return nil, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.c == nil {
		return nil, &apiError{http.StatusServiceUnavailable, "the inspector is closed"}
	}
	return in.c, nil
}

// connect connects anew in the era or version asked for and returns the
// inventory.
func (in *Inspector) connect(ctx context.Context, body json.RawMessage) (any, error) {
	var req struct {
		Era     string `json:"era"`
		Version string `json:"version"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	version := req.Version
	switch req.Era {
	case "":
	case "stateless":
		version = mcp.Version20260728
	case "session":
		if version == "" || !mcp.IsSessionVersion(version) {
			version = mcp.LatestSessionVersion
		}
	default:
		return nil, &apiError{http.StatusBadRequest, fmt.Sprintf("era is stateless or session, not %q", req.Era)}
	}
	c, err := in.cfg.Connect(ctx, client.Options{
		Info:        mcp.Implementation{Name: "specter-inspector", Version: "1.0.0"},
		Version:     version,
		Elicitation: in.elicit,
		OnLog:       func(p mcp.LoggingMessageParams) { in.events.publish(event{Type: "log", Log: &p}) },
		LogLevel:    mcp.LevelDebug,
		UI:          true,
	})
	if err != nil {
		return nil, err
	}
	inv, err := Collect(ctx, c)
	if err != nil {
		_ = c.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	in.mu.Lock()
	old := in.c
	if in.closed {
		in.mu.Unlock()
		_ = c.Close(context.WithoutCancel(ctx))
		return nil, &apiError{http.StatusServiceUnavailable, "the inspector is closed"}
	}
	in.c = c
	in.mu.Unlock()
	if old != nil {
		_ = old.Close(context.WithoutCancel(ctx))
	}
	return struct {
		Target string `json:"target"`
		*Inventory
	}{in.cfg.Target, inv}, nil
}

// call calls a tool; progress goes to the event stream under the call's
// id. The page cancels the call by aborting the request.
func (in *Inspector) call(ctx context.Context, body json.RawMessage) (any, error) {
	var req struct {
		ID        string         `json:"id"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	c, err := in.client(ctx)
	if err != nil {
		return nil, err
	}
	progress := func(p mcp.ProgressParams) { in.events.publish(event{Type: "progress", Call: req.ID, Progress: &p}) }
	res, err := c.CallTool(ctx, req.Name, req.Arguments, client.WithProgress(progress))
	if err != nil {
		return nil, err
	}
	out := map[string]any{"result": res}
	if app, err := in.app(ctx, c, req.Name); err == nil && app != nil {
		out["app"] = map[string]string{"uri": app.URI, "html": app.HTML}
	}
	return out, nil
}

// app is the UI resource the tool links to, if any, for the page to
// render beside the result.
func (in *Inspector) app(ctx context.Context, c *client.Client, name string) (*client.App, error) {
	for t, err := range c.Tools(ctx) {
		if err != nil {
			return nil, err
		}
		if t.Name == name {
			return c.ToolApp(ctx, t)
		}
	}
	return nil, nil
}

func (in *Inspector) read(ctx context.Context, body json.RawMessage) (any, error) {
	var req struct {
		URI string `json:"uri"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	c, err := in.client(ctx)
	if err != nil {
		return nil, err
	}
	return c.ReadResource(ctx, req.URI)
}

func (in *Inspector) prompt(ctx context.Context, body json.RawMessage) (any, error) {
	var req struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	c, err := in.client(ctx)
	if err != nil {
		return nil, err
	}
	return c.GetPrompt(ctx, req.Name, req.Arguments)
}

// elicit asks the pages for an answer to an elicitation request and
// waits for the first one, or cancels when the call ends.
func (in *Inspector) elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	id := strconv.FormatInt(in.nextID.Add(1), 10)
	answer := make(chan *mcp.ElicitResult, 1)
	in.pending.Store(id, answer)
	defer in.pending.Delete(id)
	in.events.publish(event{Type: "elicit", ID: id, Elicit: p})
	defer in.events.publish(event{Type: "elicit-done", ID: id})
	select {
	case a := <-answer:
		return a, nil
	case <-ctx.Done():
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
}

// answer delivers the page's answer to an elicitation request.
func (in *Inspector) answer(_ context.Context, body json.RawMessage) (any, error) {
	var req struct {
		ID string `json:"id"`
		mcp.ElicitResult
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	switch req.Action {
	case "accept", "decline", "cancel":
	default:
		return nil, &apiError{http.StatusBadRequest, fmt.Sprintf("action is accept, decline or cancel, not %q", req.Action)}
	}
	v, ok := in.pending.LoadAndDelete(req.ID)
	if !ok {
		return nil, &apiError{http.StatusNotFound, "no elicitation " + req.ID + " is waiting (answered already, or its call ended)"}
	}
	v.(chan *mcp.ElicitResult) <- &req.ElicitResult
	return map[string]bool{"ok": true}, nil
}

// stream sends the page the events of the connection: progress, logs,
// elicitation requests.
func (in *Inspector) stream(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	sub := in.events.subscribe()
	if sub == nil {
		http.Error(w, "the inspector is closed", http.StatusServiceUnavailable)
		return
	}
	defer in.events.unsubscribe(sub)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": connected\n\n")
	fl.Flush()
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		select {
		case data, ok := <-sub:
			if !ok {
				return
			}
			fmt.Fprintf(w, "data: %s\n\n", data)
			fl.Flush()
		case <-keepAlive.C:
			fmt.Fprint(w, ": keep-alive\n\n")
			fl.Flush()
		case <-r.Context().Done():
			return
		}
	}
}
