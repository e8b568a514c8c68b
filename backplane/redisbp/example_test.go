package redisbp_test

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/middleware"
)

// Every node of a deployment gets the same backplane: sessions, streams
// and the per-caller quotas are shared through it, and the rate limit's
// buckets too when it is given the backplane's RateStore.
func ExampleBackplane_RateStore() {
	bp, err := redisbp.New(context.Background(), os.Getenv("REDIS_URL"))
	if err != nil {
		log.Fatal(err)
	}
	r := specter.NewRouter("notes", "1.0.0", specter.Backplane(bp),
		specter.StateKey([]byte(os.Getenv("MCP_STATE_KEY"))),
		specter.MaxSessionsPerPrincipal(20)) // 20 on all the nodes together
	limit := middleware.RateLimitWithConfig(middleware.RateLimitConfig{
		Rate: 10, Burst: 30, // per caller, on all the nodes together
		Store: bp.RateStore(),
	})
	e := echo.New()
	r.Mount(e.Group("/mcp", echo.WrapMiddleware(limit)))
	log.Fatal(http.ListenAndServe(":8080", e))
}
