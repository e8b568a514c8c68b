package stateless

import (
	"encoding/json"
	"net/http"

	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Params is the part of a 2026-07-28 request's params the transport reads.
type Params struct {
	Name           string                     `json:"name"`
	URI            string                     `json:"uri"`
	Arguments      json.RawMessage            `json:"arguments"`
	Meta           json.RawMessage            `json:"_meta"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   string                     `json:"requestState"`
	TaskID         string                     `json:"taskId"`
}

// Read decodes the params of request m and checks its _meta, its
// MCP-Protocol-Version and the headers that route it, in the order the
// revision prescribes, and returns the request's Call. A nil h is a
// request that came with no HTTP headers (in process, as on stdio): its
// _meta alone speaks for it. The error is the refusal to answer with:
// params that do not decode are invalid params, the rest a bad request.
func Read(h http.Header, m *jsonrpc.Message) (*Params, *Call, *refusal.Error) {
	var p Params
	if len(m.Params) > 0 && !readPlain(m.Params, &p) {
		p = Params{}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, nil, refusal.InvalidParams(err)
		}
	}
	meta, jerr := ParseMeta(p.Meta)
	if jerr == nil {
		jerr = CheckVersion(h, meta.ProtocolVersion)
	}
	if jerr == nil && h != nil {
		name, named := p.route(m.Method)
		jerr = CheckRoute(h, m.Method, name, named)
	}
	if jerr != nil {
		return nil, nil, refusal.BadRequest(jerr)
	}
	call := &Call{Meta: *meta, RequestState: p.RequestState, Responses: p.InputResponses,
		InputAllowed: m.Method == mcp.MethodToolsCall || m.Method == mcp.MethodPromptsGet || m.Method == mcp.MethodResourcesRead}
	return &p, call, nil
}

// route returns what Mcp-Name must carry for method, and whether the
// method is named at all.
func (p *Params) route(method string) (string, bool) {
	switch {
	case method == mcp.MethodToolsCall || method == mcp.MethodPromptsGet:
		return p.Name, true
	case method == mcp.MethodResourcesRead:
		return p.URI, true
	case TaskMethod(method):
		return p.TaskID, true
	}
	return "", false
}

// TaskMethod reports the methods of the tasks extension, which the
// transport answers itself.
func TaskMethod(method string) bool {
	return method == mcp.MethodTasksGet || method == mcp.MethodTasksUpdate || method == mcp.MethodTasksCancel
}
