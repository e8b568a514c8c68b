package inspector_test

import (
	"context"
	"net/http"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/inspector"
)

// An application mounts the inspector of its own router for its
// developers, under a prefix and behind its own authentication.
func ExampleNew() {
	router := specter.NewRouter("app", "1.0.0")
	in := inspector.New(inspector.Config{
		Target: "this app",
		Connect: func(ctx context.Context, opts client.Options) (*client.Client, error) {
			return client.Connect(ctx, client.InMemory(router), &opts)
		},
	})
	defer in.Close()

	mux := http.NewServeMux()
	mux.Handle("/debug/mcp/", requireAdmin(http.StripPrefix("/debug/mcp", in)))
	_ = http.ListenAndServe("127.0.0.1:8080", mux)
}

// requireAdmin stands for the application's own authentication.
func requireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pass, ok := r.BasicAuth(); !ok || pass != "admin-password" {
			w.Header().Set("WWW-Authenticate", `Basic realm="inspector"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
