package specterotel

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/specter-mcp/specter/backplane"
)

// Backplane wraps bp so that its failures count in
// specter.backplane.errors, by operation. ErrNotFound is an answer, not
// a failure. Give the router the wrapper: specter.Backplane(tel.Backplane(bp)).
func (t *Telemetry) Backplane(bp backplane.Backplane) backplane.Backplane {
	return &countingBackplane{bp: bp, t: t}
}

type countingBackplane struct {
	bp backplane.Backplane
	t  *Telemetry
}

// count counts err, unless it is nil or ErrNotFound, and returns it.
func (c *countingBackplane) count(op string, err error) error {
	if err != nil && !errors.Is(err, backplane.ErrNotFound) {
		c.t.bpErrors.Add(context.Background(), 1, metric.WithAttributes(keyBackplane.String(op)))
	}
	return err
}

func (c *countingBackplane) CreateSession(ctx context.Context, s *backplane.Session, ttl time.Duration) error {
	return c.count("create_session", c.bp.CreateSession(ctx, s, ttl))
}

func (c *countingBackplane) LoadSession(ctx context.Context, id string) (*backplane.Session, error) {
	s, err := c.bp.LoadSession(ctx, id)
	return s, c.count("load_session", err)
}

func (c *countingBackplane) TouchSession(ctx context.Context, id string, ttl time.Duration) error {
	return c.count("touch_session", c.bp.TouchSession(ctx, id, ttl))
}

func (c *countingBackplane) SetField(ctx context.Context, id, field string, value json.RawMessage) error {
	return c.count("set_field", c.bp.SetField(ctx, id, field, value))
}

func (c *countingBackplane) SetMember(ctx context.Context, id, field, member string, on bool, limit int) error {
	return c.count("set_member", c.bp.SetMember(ctx, id, field, member, on, limit))
}

func (c *countingBackplane) DeleteSession(ctx context.Context, id string) (bool, error) {
	ok, err := c.bp.DeleteSession(ctx, id)
	return ok, c.count("delete_session", err)
}

func (c *countingBackplane) Append(ctx context.Context, session, stream string, ev backplane.Event, limit int) error {
	return c.count("append", c.bp.Append(ctx, session, stream, ev, limit))
}

func (c *countingBackplane) Events(ctx context.Context, session, stream string, after uint64) ([]backplane.Event, bool, error) {
	evs, lost, err := c.bp.Events(ctx, session, stream, after)
	return evs, lost, c.count("events", err)
}

func (c *countingBackplane) Head(ctx context.Context, session, stream string) (backplane.Event, error) {
	ev, err := c.bp.Head(ctx, session, stream)
	return ev, c.count("head", err)
}

func (c *countingBackplane) DropStream(ctx context.Context, session, stream string) error {
	return c.count("drop_stream", c.bp.DropStream(ctx, session, stream))
}

func (c *countingBackplane) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	ok, err := c.bp.Claim(ctx, key, ttl)
	return ok, c.count("claim", err)
}

func (c *countingBackplane) Release(ctx context.Context, key string) error {
	return c.count("release", c.bp.Release(ctx, key))
}

func (c *countingBackplane) PutTask(ctx context.Context, t *backplane.Task) (bool, error) {
	ok, err := c.bp.PutTask(ctx, t)
	return ok, c.count("put_task", err)
}

func (c *countingBackplane) LoadTask(ctx context.Context, id string) (*backplane.Task, error) {
	t, err := c.bp.LoadTask(ctx, id)
	return t, c.count("load_task", err)
}

func (c *countingBackplane) ListTasks(ctx context.Context, owner string) ([]*backplane.Task, error) {
	ts, err := c.bp.ListTasks(ctx, owner)
	return ts, c.count("list_tasks", err)
}

func (c *countingBackplane) Admit(ctx context.Context, id string, ttl time.Duration, claims, release []string) (*backplane.Session, []bool, error) {
	s, got, err := c.bp.Admit(ctx, id, ttl, claims, release)
	return s, got, c.count("admit", err)
}

func (c *countingBackplane) ClaimRequests(ctx context.Context, id string, claims, release []string) (uint64, []bool, error) {
	rev, got, err := c.bp.ClaimRequests(ctx, id, claims, release)
	return rev, got, c.count("claim_requests", err)
}

func (c *countingBackplane) Publish(ctx context.Context, m *backplane.Message) error {
	return c.count("publish", c.bp.Publish(ctx, m))
}

func (c *countingBackplane) Subscribe(handle func(*backplane.Message)) (func(), error) {
	stop, err := c.bp.Subscribe(handle)
	return stop, c.count("subscribe", err)
}

func (c *countingBackplane) Sharing() backplane.Sharing { return c.bp.Sharing() }

func (c *countingBackplane) Close() error { return c.count("close", c.bp.Close()) }
