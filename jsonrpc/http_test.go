package jsonrpc

import (
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
