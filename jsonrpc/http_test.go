package jsonrpc

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
)

func TestWriteError(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteError(rec, 429, nil, Errorf(-32000, "Too Many Requests: retry after %d s", 2))
	if rec.Code != 429 || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, content type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if want := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Too Many Requests: retry after 2 s"}}`; rec.Body.String() != want {
		t.Errorf("body %s, want %s", rec.Body, want)
	}
	rec = httptest.NewRecorder()
	WriteError(rec, 404, StringID("a"), Errorf(CodeMethodNotFound, "Method not found: x"))
	if want := `{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"Method not found: x"}}`; rec.Body.String() != want {
		t.Errorf("body %s, want %s", rec.Body, want)
	}
}

func TestDescribeParams(t *testing.T) {
	var v struct {
		Name string `json:"name"`
	}
	err := json.Unmarshal([]byte(`{"name":5}`), &v)
	if got := DescribeParams(err); got != `"name" must not be number` {
		t.Errorf("type error: %q", got)
	}
	if got := DescribeParams(json.Unmarshal([]byte(`{`), &v)); got != "malformed params object" {
		t.Errorf("syntax error: %q", got)
	}
}
