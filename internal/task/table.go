package task

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/access"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Config configures a node's table of tasks.
type Config struct {
	Backplane backplane.Backplane
	// Context bounds one backplane call.
	Context func() (context.Context, context.CancelFunc)
	// Publish sends a message to every node.
	Publish func(*backplane.Message)
	// Listed reports whether owner's tasks are ever listed (tasks/list);
	// the backplane keeps no index of the others. Nil: all are.
	Listed func(owner string) bool
	Log    zerolog.Logger
	// Limits bound what the tasks of one holder keep on this node.
	Limits Limits
	// Shared, when set, counts a holder's tasks on every node against
	// Limits.Tasks (the bytes are still counted on this node).
	Shared *access.Shared
	// Hold records a work entry of this node (package lease) until the
	// returned func runs, so that the task is failed if the node dies;
	// nil records nothing.
	Hold func(entry string) (release func())
}

// Limits bound the tasks of one holder (a caller) that run on a node, from
// their start until their TTL runs out: what a caller could otherwise
// pin with tasks is unbounded, since a task keeps its result, or the
// questions it waits on, for its whole TTL. Zero fields bound nothing.
type Limits struct {
	// Tasks caps the live tasks of a holder: working, waiting for input,
	// or ended and still readable. Start refuses the next one.
	Tasks int
	// Bytes caps what a holder's tasks keep together (results, errors,
	// open questions), and Result what one task keeps. A task whose state
	// would pass either fails at once, keeping only the reason.
	Bytes, Result int64
}

// Table holds the tasks whose work runs on this node until their TTL runs
// out, then drops and stops them, and answers for any task of the
// deployment through the backplane.
type Table struct {
	cfg  Config
	mu   sync.Mutex
	m    map[string]*Task
	held map[string]*holding // by holder
}

// codeOverLimit is the JSON-RPC error of a task over a limit, from the
// implementation-defined server errors (as the transport's 429s).
const codeOverLimit = -32000

// holding is what one holder's tasks take on this node.
type holding struct {
	tasks int
	bytes int64
}

// NewTable returns an empty table.
func NewTable(cfg Config) *Table {
	return &Table{cfg: cfg, m: map[string]*Task{}, held: map[string]*holding{}}
}

// take counts one more live task for holder, unless it is at the limit
// here (counted says the shared count took it already).
func (tt *Table) take(holder string, counted bool) *jsonrpc.Error {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	h := tt.held[holder]
	if h == nil {
		h = &holding{}
		tt.held[holder] = h
	}
	if limit := tt.cfg.Limits.Tasks; !counted && limit > 0 && h.tasks >= limit {
		return tooManyTasks(limit)
	}
	h.tasks++
	return nil
}

func tooManyTasks(limit int) *jsonrpc.Error {
	return jsonrpc.Errorf(codeOverLimit, "Too many tasks: this caller already holds %d tasks on this server, the most allowed; "+
		"a task counts until its TTL runs out after it ends, so wait, or cancel one that is still running", limit)
}

// share counts t on every node, when the count is shared: it returns
// the function that lets it go, or nil when nothing was counted.
func (tt *Table) share(t *Task) (release func(), err error) {
	limit := tt.cfg.Limits.Tasks
	if tt.cfg.Shared == nil || limit <= 0 {
		return nil, nil
	}
	release, ok, err := tt.cfg.Shared.HoldFor("tasks", t.Holder, t.ID, t.st.TTL, limit)
	switch {
	case err != nil:
		return nil, fmt.Errorf("count task %s: %w", t.ID, err)
	case !ok:
		return nil, tooManyTasks(limit)
	}
	return release, nil
}

// release gives back a task of holder that charged bytes.
func (tt *Table) release(holder string, bytes int64) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if h := tt.held[holder]; h != nil {
		if h.tasks--; h.tasks <= 0 {
			delete(tt.held, holder)
			return
		}
		h.bytes -= bytes
	}
}

// charger returns t's fits: it charges what t's state keeps, size, to
// t's holder, in place of what its earlier state kept (t.charged).
func (tt *Table) charger(t *Task) func(size int64, force bool) *jsonrpc.Error {
	return func(size int64, force bool) *jsonrpc.Error {
		tt.mu.Lock()
		defer tt.mu.Unlock()
		h := tt.held[t.Holder]
		l, total := tt.cfg.Limits, h.bytes-t.charged+size
		switch {
		case force:
		case l.Result > 0 && size > l.Result:
			return jsonrpc.Errorf(codeOverLimit, "Task result too large: it holds %d bytes, and a task keeps at most %d", size, l.Result)
		case l.Bytes > 0 && total > l.Bytes:
			return jsonrpc.Errorf(codeOverLimit, "Task result too large: this caller's tasks would keep %d bytes, and they keep at most %d "+
				"until they expire; cancel tasks, or ask for less at a time", total, l.Bytes)
		}
		h.bytes, t.charged = total, size
		return nil
	}
}

// Add holds t for its TTL and shares it, so that it can be polled before
// the answer that names it leaves. changed, if not nil, runs after every
// later change of t, on this node. It fails when the backplane does, and
// with a *jsonrpc.Error when t's holder holds as many tasks as Limits
// allow.
func (tt *Table) Add(t *Task, changed func(*State)) error {
	shared, err := tt.share(t)
	if err != nil {
		return err
	}
	if shared == nil {
		shared = func() {}
	}
	if e := tt.take(t.Holder, tt.cfg.Shared != nil); e != nil {
		return e
	}
	sv := &saver{tt: tt, t: t}
	t.changed = func(t *Task) {
		s := sv.save()
		if changed != nil {
			changed(s)
		}
	}
	t.fits = tt.charger(t)
	if err := tt.save(t.Owner, t.State()); err != nil {
		tt.release(t.Holder, 0)
		shared()
		return err
	}
	tt.mu.Lock()
	tt.m[t.ID] = t
	tt.mu.Unlock()
	time.AfterFunc(t.st.TTL, func() {
		tt.mu.Lock()
		delete(tt.m, t.ID)
		tt.mu.Unlock()
		t.Stop()
		t.mu.Lock()
		t.fits = nil // charges nothing more
		bytes := t.charged
		t.mu.Unlock()
		tt.release(t.Holder, bytes)
		shared()
	})
	return nil
}

// Retries of a change the backplane did not take: the first after
// saveRetry, each later one twice as late, at most maxSaveRetry apart.
const (
	saveRetry    = 250 * time.Millisecond
	maxSaveRetry = 5 * time.Second
)

// saver writes the changes of a task whose work runs here, in order, and
// keeps trying the latest one while the backplane does not take it, so
// that other nodes do not see a task working forever that ended here
// during an outage.
type saver struct {
	tt *Table
	t  *Task

	mu       sync.Mutex // a later state is never overwritten by an earlier one
	retrying bool       // a retry is scheduled
}

// save writes t's state now, or schedules retries, and returns it.
func (sv *saver) save() *State {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	s := sv.t.State()
	if err := sv.tt.save(sv.t.Owner, s); err != nil {
		sv.tt.cfg.Log.Warn().Err(err).Str("task", sv.t.ID).Msg("mcp task: the backplane did not take a change; retrying")
		sv.retryLocked(saveRetry)
	} else if Terminal(s.Status) {
		sv.t.shed() // the backplane keeps the ended task: one copy is enough
	}
	return s
}

func (sv *saver) retryLocked(delay time.Duration) {
	if sv.retrying {
		return
	}
	sv.retrying = true
	time.AfterFunc(delay, func() {
		sv.mu.Lock()
		defer sv.mu.Unlock()
		sv.retrying = false
		if sv.tt.local(sv.t.ID) == nil {
			return // its TTL ran out: nobody can read it any more
		}
		s := sv.t.State()
		if err := sv.tt.save(sv.t.Owner, s); err != nil {
			sv.retryLocked(min(2*delay, maxSaveRetry))
			return
		}
		if Terminal(s.Status) {
			sv.t.shed()
		}
		sv.tt.cfg.Log.Info().Str("task", sv.t.ID).Msg("mcp task: the backplane took the change on a retry")
	})
}

// save writes s to the backplane, final once it is terminal.
func (tt *Table) save(owner string, s *State) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode task %s: %w", s.ID, err)
	}
	ctx, cancel := tt.cfg.Context()
	defer cancel()
	unlisted := tt.cfg.Listed != nil && !tt.cfg.Listed(owner)
	_, err = tt.cfg.Backplane.PutTask(ctx, &backplane.Task{ID: s.ID, Owner: owner, Final: Terminal(s.Status),
		Unlisted: unlisted, Expires: s.Created.Add(s.TTL), Data: raw})
	return err
}

// local returns the task id when its work runs here.
func (tt *Table) local(id string) *Task {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.m[id]
}

// Stop stops the work of every task that runs here, at shutdown.
func (tt *Table) Stop() {
	tt.mu.Lock()
	all := slices.Collect(maps.Values(tt.m))
	tt.mu.Unlock()
	for _, t := range all {
		t.Stop()
	}
}

// Get returns owner's task id as it is now, from this node when its work
// runs here, else from the backplane. Another owner's task is as unknown
// as one that never was.
func (tt *Table) Get(id, owner string) (*State, *refusal.Error) {
	if t := tt.local(id); t != nil {
		if t.Owner != owner {
			return nil, refusal.UnknownTask(id)
		}
		if s, ok := t.kept(); ok {
			return s, nil
		}
	}
	ctx, cancel := tt.cfg.Context()
	defer cancel()
	rec, err := tt.cfg.Backplane.LoadTask(ctx, id)
	return tt.decode(id, owner, rec, err)
}

func (tt *Table) decode(id, owner string, rec *backplane.Task, err error) (*State, *refusal.Error) {
	switch {
	case errors.Is(err, backplane.ErrNotFound) || err == nil && rec.Owner != owner:
		return nil, refusal.UnknownTask(id)
	case err != nil:
		tt.cfg.Log.Error().Err(err).Str("task", id).Msg("mcp task: backplane read failed")
		return nil, refusal.StorageUnavailable
	}
	var s State
	if err := json.Unmarshal(rec.Data, &s); err != nil {
		tt.cfg.Log.Error().Err(err).Str("task", id).Msg("mcp task: unreadable record")
		return nil, refusal.UnknownTask(id)
	}
	return &s, nil
}

// List returns owner's tasks, in the order they expire.
func (tt *Table) List(owner string) ([]*State, *refusal.Error) {
	ctx, cancel := tt.cfg.Context()
	defer cancel()
	recs, err := tt.cfg.Backplane.ListTasks(ctx, owner)
	if err != nil {
		tt.cfg.Log.Error().Err(err).Msg("mcp task: backplane list failed")
		return nil, refusal.StorageUnavailable
	}
	out := make([]*State, 0, len(recs))
	for _, rec := range recs {
		if s, refused := tt.decode(rec.ID, owner, rec, nil); refused == nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// Cancel cancels owner's task id: here when its work runs here, else in
// the backplane at once and on the node running the work by a message.
// It returns the task as it is after, and whether it had ended already
// (then it is unchanged).
func (tt *Table) Cancel(id, owner string) (s *State, ended bool, refused *refusal.Error) {
	if t := tt.local(id); t != nil && t.Owner == owner {
		ended = Terminal(t.State().Status)
		t.Stop()
		return t.State(), ended, nil
	}
	s, refused = tt.Get(id, owner)
	if refused != nil || Terminal(s.Status) {
		return s, refused == nil, refused
	}
	s.Status, s.Message, s.Updated, s.Inputs = Cancelled, "The task was cancelled.", time.Now(), nil
	if err := tt.save(owner, s); err != nil {
		tt.cfg.Log.Error().Err(err).Str("task", id).Msg("mcp task: backplane write failed")
		return nil, false, refusal.StorageUnavailable
	}
	tt.cfg.Publish(&backplane.Message{Kind: backplane.KindTask, Stream: id, Method: mcp.MethodTasksCancel})
	// The work may have ended meanwhile: what the backplane keeps is the truth.
	s, refused = tt.Get(id, owner)
	return s, false, refused
}

// Fail fails task id, whose work ran on a node that died, with reason
// as its message and error, unless it ended already. It reports the task
// as it is after, nil for a task that is gone.
func (tt *Table) Fail(ctx context.Context, id, reason string) (*State, error) {
	rec, err := tt.cfg.Backplane.LoadTask(ctx, id)
	if errors.Is(err, backplane.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load task %s: %w", id, err)
	}
	var s State
	if err := json.Unmarshal(rec.Data, &s); err != nil {
		return nil, fmt.Errorf("decode task %s: %w", id, err)
	}
	if Terminal(s.Status) {
		return &s, nil
	}
	s.Status, s.Message, s.Updated, s.Inputs = Failed, reason, time.Now(), nil
	s.Error = jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: %s", reason)
	if err := tt.save(rec.Owner, &s); err != nil {
		return nil, err
	}
	// What the backplane keeps is the truth: a final state written
	// meanwhile by the task's node stays.
	if rec, err := tt.cfg.Backplane.LoadTask(ctx, id); err == nil {
		_ = json.Unmarshal(rec.Data, &s)
	}
	return &s, nil
}

// Update delivers the responses of tasks/update to owner's task id, on
// whichever node runs its work.
func (tt *Table) Update(id, owner string, responses map[string]json.RawMessage) *refusal.Error {
	if t := tt.local(id); t != nil && t.Owner == owner {
		t.Answer(responses)
		return nil
	}
	if _, refused := tt.Get(id, owner); refused != nil {
		return refused
	}
	raw, err := json.Marshal(responses)
	if err != nil {
		return refusal.BadRequest(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %v", err))
	}
	tt.cfg.Publish(&backplane.Message{Kind: backplane.KindTask, Stream: id, Method: mcp.MethodTasksUpdate, Data: raw})
	return nil
}

// Receive acts on a message for a task whose work runs here.
func (tt *Table) Receive(m *backplane.Message) {
	t := tt.local(m.Stream)
	if t == nil {
		return
	}
	switch m.Method {
	case mcp.MethodTasksCancel:
		t.Stop()
	case mcp.MethodTasksUpdate:
		var responses map[string]json.RawMessage
		if json.Unmarshal(m.Data, &responses) == nil {
			t.Answer(responses)
		}
	}
}

// Wait returns owner's task id once it ended, or ctx's error first.
func (tt *Table) Wait(ctx context.Context, id, owner string) (*State, *refusal.Error) {
	if t := tt.local(id); t != nil && t.Owner == owner {
		select {
		case <-t.Done():
			if s, ok := t.kept(); ok {
				return s, nil
			}
		case <-ctx.Done():
			return nil, refusal.BadRequest(jsonrpc.Errorf(jsonrpc.CodeRequestCancelled, "Request cancelled"))
		}
	}
	poll := time.NewTicker(PollInterval)
	defer poll.Stop()
	for {
		s, refused := tt.Get(id, owner)
		if refused != nil || Terminal(s.Status) {
			return s, refused
		}
		select {
		case <-poll.C:
		case <-ctx.Done():
			return nil, refusal.BadRequest(jsonrpc.Errorf(jsonrpc.CodeRequestCancelled, "Request cancelled"))
		}
	}
}

// Serve answers tasks/get, tasks/update (delivering responses) or
// tasks/cancel of the 2026-07-28 wire for owner's task id, with the
// result to send or the refusal of an unknown task.
func (tt *Table) Serve(method, id, owner string, responses map[string]json.RawMessage) (any, *refusal.Error) {
	switch method {
	case mcp.MethodTasksUpdate:
		if refused := tt.Update(id, owner, responses); refused != nil {
			return nil, refused
		}
	case mcp.MethodTasksCancel:
		if _, _, refused := tt.Cancel(id, owner); refused != nil {
			return nil, refused
		}
	default:
		s, refused := tt.Get(id, owner)
		if refused != nil {
			return nil, refused
		}
		return s.View(true), nil
	}
	return &mcp.ResultBase{}, nil
}
