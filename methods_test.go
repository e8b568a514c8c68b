package specter

import (
	"strings"
	"testing"
)

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"ListNotes": "list_notes", "GetHTTPStatus": "get_http_status", "ID": "id", "URLFor2Users": "url_for2_users",
		"Search": "search", "ToJSON": "to_json", "V2Api": "v2_api",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

type undescribed struct{}

func (undescribed) Ping(*Request, *Context) Result { return Reply("pong") }

type described struct{}

func (described) Ping(*Request, *Context) Result         { return Reply("method") }
func (described) Describe() map[string]string            { return map[string]string{"ping": "Ping"} }
func (described) Helper(int) string                      { return "" }
func (described) StatusPrompt(*Request, *Context) Result { return Reply("s") }

func TestMethodsNeedDescriptionsAndYieldToExplicitDeclarations(t *testing.T) {
	err := declErr(t, func() { newTestRouter().Methods(undescribed{}) })
	if err == nil || !strings.Contains(err.Error(), `tool "ping": a description is required`) {
		t.Fatalf("error %v", err)
	}

	r := newTestRouter()
	r.Methods(described{}, MethodDescriptions(map[string]string{"status": "Status"}))
	r.Tool("ping", nop, Description("explicit, after"))
	cat := r.catalog.Load()
	if d := cat.ByTool["ping"]; d == nil || d.description != "explicit, after" || len(cat.Tools) != 1 {
		t.Errorf("ping declared after Methods: %+v", cat.Tools)
	}
	if cat.ByPrompt["status"] == nil {
		t.Error("StatusPrompt is not the prompt status")
	}

	r = newTestRouter()
	r.Tool("ping", nop, Description("explicit, before"))
	r.Methods(described{}, MethodDescriptions(map[string]string{"status": "Status"}))
	if d := r.catalog.Load().ByTool["ping"]; d.description != "explicit, before" {
		t.Errorf("ping declared before Methods: %q", d.description)
	}

	r = newTestRouter()
	r.Tool("ping", nop, Description("explicit"))
	if err := declErr(t, func() { r.Tool("ping", nop, Description("again")) }); err == nil {
		t.Error("two explicit declarations of one name must still collide")
	}
}

func TestMethodsRefuseValuesWithoutHandlersAndUnknownKeys(t *testing.T) {
	for want, declare := range map[string]func(){
		"no method has a handler's signature": func() { newTestRouter().Methods(struct{}{}) },
		`"pong" names no method`: func() {
			newTestRouter().Methods(described{}, MethodDescriptions(map[string]string{"pong": "x", "status": "Status"}))
		},
		`"Pang" names no method`: func() {
			newTestRouter().Methods(described{}, MethodDescriptions(map[string]string{"status": "Status"}), MethodOptions(map[string][]Option{"Pang": {ReadOnly()}}))
		},
	} {
		if err := declErr(t, declare); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}
