package reqctx

import (
	"context"
	"time"
)

// A Budget is a rate limit's remaining allowance for the
// messages of one HTTP request, carried from middleware.RateLimit, which admits the
// request, to the router, which finds several messages in a JSON-RPC batch.
// Neither side imports the other: the limit puts a Budget in the request's
// context, and the router takes from whatever budgets it finds there, or
// none.

// Budget is the allowance of one caller under one rate limit.
type Budget interface {
	// Take takes one token for one more message. When none is left it
	// returns false and how long until there will be one. It may be called
	// from several goroutines.
	Take() (ok bool, wait time.Duration)
}

type budgetKey struct{}

// budgetStack is the budgets of a request, the one added last first: limits
// nest (one on a group, another on a route), and a message must pass
// each, as the HTTP request did.
type budgetStack struct {
	b    Budget
	next *budgetStack
}

// WithBudget returns ctx carrying b as well as the budgets ctx already carries.
func WithBudget(ctx context.Context, b Budget) context.Context {
	next, _ := ctx.Value(budgetKey{}).(*budgetStack)
	return context.WithValue(ctx, budgetKey{}, &budgetStack{b: b, next: next})
}

// TakeBudget takes one token from every budget in ctx, outermost first, and
// stops at the first that has none, returning false and its wait. Tokens
// already taken from outer budgets are spent, as they are when an outer
// limit admits an HTTP request that an inner one refuses. Without a
// budget in ctx, Take allows everything.
func TakeBudget(ctx context.Context) (ok bool, wait time.Duration) {
	s, _ := ctx.Value(budgetKey{}).(*budgetStack)
	return s.take()
}

func (s *budgetStack) take() (bool, time.Duration) {
	if s == nil {
		return true, 0
	}
	if ok, wait := s.next.take(); !ok {
		return false, wait
	}
	return s.b.Take()
}
