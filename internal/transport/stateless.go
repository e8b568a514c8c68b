package transport

import (
	"net/http"

	"github.com/specter-mcp/specter/internal/methods"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/reqctx"
	"github.com/specter-mcp/specter/internal/stateless"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// serveStateless serves a 2026-07-28 POST: validation in the order the
// revision prescribes, then connect, then dispatch on the request's own
// response stream.
func (t *Transport[C]) serveStateless(w http.ResponseWriter, req *http.Request, msgs []*jsonrpc.Message, batch bool) {
	if batch {
		refusal.Write(w, nil, refusal.StatelessBatch)
		return
	}
	m := msgs[0]
	switch m.Kind() {
	case jsonrpc.KindNotification:
		w.WriteHeader(http.StatusAccepted)
		return
	case jsonrpc.KindResponse, jsonrpc.KindErrorResponse:
		refusal.Write(w, nil, refusal.StatelessResponse)
		return
	}
	if e := methods.CheckParams(m.Params); e != nil {
		refusal.Write(w, m.ID, refusal.BadRequest(e))
		return
	}
	hdr := req.Header
	if reqctx.InProcess(req.Context()) {
		hdr = nil // no intermediary routes it: _meta alone speaks for it
	}
	p, call, refused := stateless.Read(hdr, m)
	if refused != nil {
		refusal.Write(w, m.ID, refused)
		return
	}
	c, ok := t.host.Connect(w, req, m.ID, call.Meta.ClientCapabilities)
	if !ok {
		return
	}
	if m.Method == mcp.MethodToolsCall && hdr != nil {
		if jerr := t.host.CheckParamHeaders(req.Header, c, p.Name, p.Arguments); jerr != nil {
			refusal.Write(w, m.ID, refusal.BadRequest(jerr))
			return
		}
	}
	if m.Method == mcp.MethodSubscriptionsListen {
		t.serveListen(w, req, c, m)
		return
	}
	if stateless.TaskMethod(m.Method) {
		t.host.ServeTask(w, c, m, call, p)
		return
	}
	if _, found := methods.LookupStateless(m.Method); !found {
		refusal.Write(w, m.ID, refusal.MethodNotFound(m.Method))
		return
	}
	ob := t.cfg.Streams.New(stream.Options{Pending: 1})
	gen := ob.AttachPOST(w)
	t.host.Dispatch(c, nil, ob, m, call)
	if ob.Await(w, req, gen, false) {
		ob.Drop()
	}
}
