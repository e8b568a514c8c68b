package stateless

import (
	"encoding/json"
	"errors"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"reflect"
	"sync"
	"testing"
	"time"
)

func TestKey(t *testing.T) {
	c := &Call{}
	got := []string{
		c.Key("elicitation/create", ""), c.Key("sampling/createMessage", ""),
		c.Key("elicitation/create", "mine"), c.Key("elicitation/create", ""), c.Key("roots/list", ""),
	}
	want := []string{"elicitation-1", "sampling-1", "mine", "elicitation-2", "roots-1"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("key %d = %q, want %q", i, got[i], want[i])
		}
	}
	// Concurrent askers get distinct keys.
	var wg sync.WaitGroup
	keys := make([]string, 50)
	for i := range keys {
		wg.Go(func() { keys[i] = c.Key("sampling/createMessage", "") })
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			t.Fatalf("key %q given twice", k)
		}
		seen[k] = true
	}
}

type answer struct {
	Action string `json:"action"`
}

func ask(c *Call, key string) (answer, error) {
	var a answer
	err := c.Input(key, "elicitation/create", map[string]any{"message": "ok?"}, &a, func() bool { return a.Action != "" })
	return a, err
}

func TestRounds(t *testing.T) {
	s, _ := NewSealer([]byte("k"), time.Minute)
	// Round 1: no answer, so the question is recorded.
	c1 := &Call{InputAllowed: true}
	if err := c1.Open(s, func() Binding { return Bind("u1", "tools/call", "deploy", nil) }); err != nil {
		t.Fatal(err)
	}
	if _, err := ask(c1, "confirm"); !errors.Is(err, ErrInputRequired) {
		t.Fatalf("round 1: %v, want ErrInputRequired", err)
	}
	res, err := c1.InputRequired(s, Bind("u1", "tools/call", "deploy", nil))
	if err != nil || res.ResultType != mcp.ResultInputRequired || res.InputRequests["confirm"].Method != "elicitation/create" || res.RequestState == "" {
		t.Fatalf("InputRequired = %+v, %v", res, err)
	}
	// Round 2: the answer comes back with the state.
	c2 := &Call{InputAllowed: true, RequestState: res.RequestState,
		Responses: map[string]json.RawMessage{"confirm": json.RawMessage(`{"action":"accept"}`), "skipped": json.RawMessage(`null`)}}
	if err := c2.Open(s, func() Binding { return Bind("u1", "tools/call", "deploy", nil) }); err != nil {
		t.Fatal(err)
	}
	if a, err := ask(c2, "confirm"); err != nil || a.Action != "accept" {
		t.Fatalf("round 2: %+v, %v", a, err)
	}
	if _, err := ask(c2, "skipped"); !errors.Is(err, ErrInputRequired) {
		t.Errorf("a null response counted as an answer: %v", err)
	}
	// Round 3 carries round 2's answers in its state, without resending them.
	res2, _ := c2.InputRequired(s, Bind("u1", "tools/call", "deploy", nil))
	c3 := &Call{InputAllowed: true, RequestState: res2.RequestState}
	if err := c3.Open(s, func() Binding { return Bind("u1", "tools/call", "deploy", nil) }); err != nil {
		t.Fatal(err)
	}
	if a, err := ask(c3, "confirm"); err != nil || a.Action != "accept" {
		t.Errorf("round 3 lost round 2's answer: %+v, %v", a, err)
	}
	// The state is refused for another caller or request.
	for _, who := range [][3]string{{"u2", "tools/call", "deploy"}, {"u1", "tools/call", "other"}, {"u1", "prompts/get", "deploy"}} {
		c := &Call{RequestState: res.RequestState}
		if err := c.Open(s, func() Binding { return Bind(who[0], who[1], who[2], nil) }); err == nil || err.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("Open as %v: %v, want -32602", who, err)
		}
	}
}

func TestInputRefusals(t *testing.T) {
	c := &Call{}
	if _, err := ask(c, "k"); err == nil || errors.Is(err, ErrInputRequired) {
		t.Errorf("a method that may not ask: %v", err)
	}
	c = &Call{InputAllowed: true, Responses: map[string]json.RawMessage{"k": json.RawMessage(`{"action":""}`)}}
	s, _ := NewSealer(nil, time.Minute)
	_ = c.Open(s, func() Binding { return Bind("", "tools/call", "t", nil) })
	if _, err := ask(c, "k"); !errors.Is(err, ErrInputRequired) {
		t.Errorf("an answer of the wrong shape was accepted: %v", err)
	}
	if _, err := (&Call{}).InputRequired(s, Bind("", "tools/call", "t", nil)); !errors.Is(err, ErrNothingAsked) {
		t.Errorf("InputRequired without a question: %v", err)
	}
}

func TestDecorate(t *testing.T) {
	server := mcp.Implementation{Name: "s", Version: "1"}
	shared := mcp.Meta{"k": "v"}
	res := &mcp.ListToolsResult{}
	res.Meta = shared
	base, appendInfo := Decorate(res, server, "tools/list")
	if base == nil || appendInfo || res.ResultType != mcp.ResultComplete || res.Meta[mcp.MetaServerInfo].(mcp.Implementation).Name != "s" || res.Meta["k"] != "v" {
		t.Fatalf("Decorate: %+v", res.ResultBase)
	}
	if _, leaked := shared[mcp.MetaServerInfo]; leaked {
		t.Error("Decorate wrote into the handler's _meta map")
	}
	Cache(base, 2*time.Second, mcp.CachePublic, false)
	if *res.TTLMs != 2000 || res.CacheScope != mcp.CachePublic {
		t.Errorf("Cache: %d %q", *res.TTLMs, res.CacheScope)
	}
	Cache(base, 0, mcp.CachePublic, true)
	if *res.TTLMs != 0 || res.CacheScope != mcp.CachePrivate {
		t.Errorf("Cache private: %d %q", *res.TTLMs, res.CacheScope)
	}
	call := &mcp.CallToolResult{}
	if base, appendInfo := Decorate(call, server, "tools/call"); base != nil || !appendInfo || call.Meta != nil {
		t.Errorf("a tools/call result without _meta: hints %v, appendInfo %v, _meta %v", base, appendInfo, call.Meta)
	}
	ir := &mcp.InputRequiredResult{}
	ir.ResultType = mcp.ResultInputRequired
	if base, _ := Decorate(ir, server, "resources/read"); base != nil || ir.ResultType != mcp.ResultInputRequired {
		t.Error("an input_required result asks for caching hints")
	}
	if base, appendInfo := Decorate("not a result", server, "tools/list"); base != nil || appendInfo {
		t.Error("a value that is no result was decorated")
	}
}

// TestAppendInfo: the server's identity appended to an encoded result
// reads as the one encoding/json writes from a _meta map.
func TestAppendInfo(t *testing.T) {
	server := mcp.Implementation{Name: "s", Version: "1", Title: "<S>"}
	for _, res := range []any{&mcp.CallToolResult{Content: []mcp.Content{mcp.Text("hi")}}, &mcp.ListPromptsResult{}, &mcp.ResultBase{}} {
		body, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		res.(interface{ Base() *mcp.ResultBase }).Base().Meta = mcp.Meta{mcp.MetaServerInfo: server}
		want, _ := json.Marshal(res)
		got := AppendInfo(body, InfoMeta(server))
		var g, w any
		if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil || !reflect.DeepEqual(g, w) {
			t.Errorf("AppendInfo: %s, want %s", got, want)
		}
	}
}

func TestCapability(t *testing.T) {
	for path, want := range map[string]string{
		"sampling":        `{"sampling":{}}`,
		"elicitation.url": `{"elicitation":{"url":{}}}`,
	} {
		if b, _ := json.Marshal(Capability(path)); string(b) != want {
			t.Errorf("Capability(%q) = %s, want %s", path, b, want)
		}
	}
}

func TestClient(t *testing.T) {
	v, info, caps := (&Call{Meta: mcp.RequestMeta{ProtocolVersion: "2026-07-28"}}).Client()
	if v != "2026-07-28" || info.Name != "" || caps.Sampling != nil {
		t.Errorf("no client info: %q %+v %+v", v, info, caps)
	}
	c := &Call{Meta: mcp.RequestMeta{ClientInfo: &mcp.Implementation{Name: "c"}, ClientCapabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}}}
	if _, info, caps := c.Client(); info.Name != "c" || caps.Sampling == nil {
		t.Errorf("client info: %+v %+v", info, caps)
	}
}
