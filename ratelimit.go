package specter

import (
	"time"

	"github.com/specter-mcp/specter/handlers"
	"github.com/specter-mcp/specter/internal/budget"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
)

// withinBudget takes a token for m, a further request of a batch, from the
// budget a rate limit (middleware.RateLimit) gave the HTTP request, whose
// own token admitted its first request. Without a token it answers m on
// ob with a rate-limit error, so that every request of the batch is
// answered but only those within the limit run, and returns false.
func (r *Router) withinBudget(conn *Context, sess *session.Session, ob *stream.Stream, m *jsonrpc.Message) bool {
	ok, wait := budget.Take(conn.http.Context())
	if ok {
		return true
	}
	// The connection's caller and grants, with this request's own fields.
	c := *conn
	c.req, c.sess = newRequest(m, sess, nil), sess
	x := &exchange{r: r, c: &c, sess: sess, ob: ob, start: time.Now()}
	x.respond(handlers.Failed(refusal.TooManyMessages(refusal.RetrySeconds(wait))), false)
	return false
}
