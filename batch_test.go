package specter_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
)

// listedTools lists r's tools over a 2026-07-28 tools/list.
func listedTools(t *testing.T, r *specter.Router) []string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{` +
		strconv.Quote(mcp.MetaProtocolVersion) + `:"2026-07-28",` + strconv.Quote(mcp.MetaClientCapabilities) + `:{},` +
		strconv.Quote(mcp.MetaClientInfo) + `:{"name":"t","version":"1"}}}}`
	rec := newReplay(r.Handler(), []byte(body), http.Header{"Content-Type": {"application/json"},
		"Accept": {"application/json, text/event-stream"}, "Mcp-Protocol-Version": {mcp.Version20260728},
		"Mcp-Method": {"tools/list"}}).serve()
	var res struct {
		Result mcp.ListToolsResult `json:"result"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &res) != nil {
		t.Fatalf("tools/list: %d %s", rec.Code, rec.Body)
	}
	var names []string
	for _, tool := range res.Result.Tools {
		names = append(names, tool.Name)
	}
	return names
}

type pinger struct{}

func (pinger) Ping(*specter.Request, *specter.Context) specter.Result { return specter.Reply("pong") }

func TestDeclarePublishesTheBatchTogether(t *testing.T) {
	r := specter.NewRouter("batch", "1", specter.Logger(zerolog.Nop()))
	defer shutdown(t, r)
	nop := func(specter.Params, *specter.Request, *specter.Context) specter.Result { return specter.Reply("") }
	r.Tool("before", nop, specter.Description("x"))
	r.Declare(func() {
		r.Tool("a", nop, specter.Description("x"))
		r.Declare(func() { r.Tool("b", nop, specter.Description("x")) }) // joins the batch
		r.Tool("ping", nop, specter.Description("explicit"))
		r.Methods(pinger{}, specter.MethodDescriptions(map[string]string{"ping": "implicit"})) // yields to the explicit ping
		r.RemoveTool("before")
		if got := listedTools(t, r); !slices.Equal(got, []string{"before"}) {
			t.Errorf("inside the batch, tools/list shows %v, want the published [before]", got)
		}
	})
	if got := listedTools(t, r); !slices.Equal(got, []string{"a", "b", "ping"}) {
		t.Errorf("after the batch, tools/list shows %v, want [a b ping]", got)
	}

	// A bad declaration panics out of the batch; what came before it is
	// published.
	func() {
		defer func() {
			var de *specter.DeclarationError
			if err, _ := recover().(error); !errors.As(err, &de) || de.Name != "a" {
				t.Errorf("the duplicate panicked with %v, want a DeclarationError naming a", err)
			}
		}()
		r.Declare(func() {
			r.Tool("c", nop, specter.Description("x"))
			r.Tool("a", nop, specter.Description("x"))
		})
	}()
	if got := listedTools(t, r); !slices.Equal(got, []string{"a", "b", "ping", "c"}) {
		t.Errorf("after the failed batch, tools/list shows %v, want [a b ping c]", got)
	}
	r.Tool("d", nop, specter.Description("x")) // the router still declares alone
	if got := listedTools(t, r); len(got) != 5 {
		t.Errorf("tools/list shows %v, want 5 tools", got)
	}
}
