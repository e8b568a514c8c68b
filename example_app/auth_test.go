package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestConnectRefusesMissingAndForgedKeys(t *testing.T) {
	srv := startApp(t)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for name, auth := range map[string]string{
		"missing":      "",
		"forged":       "Bearer " + basicKey + "x",
		"empty bearer": "Bearer ",
		"other scheme": "Basic " + basicKey,
	} {
		t.Run(name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(initialize))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer drain(resp)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", resp.StatusCode)
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Errorf("WWW-Authenticate %q, want a Bearer challenge", got)
			}
			var m message
			if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || m.Error == nil {
				t.Errorf("body is not a JSON-RPC error (%v): %+v", err, m)
			}
		})
	}
}

func TestToolsListDependsOnPlan(t *testing.T) {
	srv := startApp(t)
	for key, want := range map[string][]string{
		basicKey: {"foo", "get_study", "whoami"},
		ultraKey: {"foo", "get_study", "long_task", "whoami"},
	} {
		c := newClient(t, srv, key)
		c.initialize(nil)
		var res struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		c.result("tools/list", map[string]any{}, &res)
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		if !slices.Equal(names, want) {
			t.Errorf("%s sees tools %v, want %v", key, names, want)
		}
	}
}

// A tool outside the caller's plan must be indistinguishable from a tool
// that does not exist.
func TestHiddenToolFailsLikeUnknownTool(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, basicKey)
	c.initialize(nil)
	errorFor := func(name string) rpcError {
		res, _ := c.call("tools/call", map[string]any{"name": name, "arguments": map[string]any{"steps": 1}})
		if res.Error == nil {
			t.Fatalf("calling %s succeeded: %s", name, res.Result)
		}
		e := *res.Error
		e.Message = strings.ReplaceAll(e.Message, name, "<name>")
		e.Data = bytes.ReplaceAll(e.Data, []byte(name), []byte("<name>"))
		return e
	}
	hidden, unknown := errorFor("long_task"), errorFor("no_such_tool")
	if hidden.Code != unknown.Code || hidden.Message != unknown.Message || !bytes.Equal(hidden.Data, unknown.Data) {
		t.Errorf("hidden tool error %+v differs from unknown tool error %+v", hidden, unknown)
	}
}
