package principal

import (
	"context"
	"testing"
)

func TestContextRoundTripAndScopes(t *testing.T) {
	if _, ok := FromContext(context.Background()); ok {
		t.Fatal("empty context has a principal")
	}
	p := &Principal{ID: "u1", Scopes: []string{"studies:read", "studies:write"}}
	got, ok := FromContext(NewContext(context.Background(), p))
	if !ok || got != p {
		t.Fatalf("got %v %v", got, ok)
	}
	if !p.HasScopes("studies:read", "studies:write") || p.HasScope("admin") || p.HasScopes("studies:read", "admin") {
		t.Error("HasScope(s) wrong")
	}
	var none *Principal
	if none.HasScope("x") {
		t.Error("nil principal has a scope")
	}
	if _, ok := FromContext(NewContext(context.Background(), nil)); ok {
		t.Error("a nil principal was found")
	}
}
