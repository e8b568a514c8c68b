package integration

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// underLoad has three clients stream 100-event calls of one session
// through nodes, dropping and resuming at random, while fault runs; they
// go on after it returned until 3 calls completed, or 60 were made. Each call must end with
// every event once and in order, or with an explicit error (an HTTP
// error, a notice of lost messages); never with a silent gap, a repeat
// or a hang; an HTTP error must be 503 (retry) or 404 (start again). A
// client told of an error while the fault runs waits for its end before
// the next call, rather than spin on errors. told, which fault may wait
// on, is closed once a client was told of an error. underLoad returns
// how many calls completed after the fault.
func underLoad(t *testing.T, base *mcptest.Client, nodes []*node, fault func(told <-chan struct{})) (completeAfter int) {
	t.Helper()
	var faulted atomic.Bool
	over := make(chan struct{}) // closed when fault returned
	ended := sync.OnceFunc(func() { faulted.Store(true); close(over) })
	toldCh := make(chan struct{})
	firstTold := sync.OnceFunc(func() { close(toldCh) })
	tctx, cancel := context.WithTimeout(t.Context(), hangAfter)
	var mu sync.Mutex
	var complete, told, after int
	var wg sync.WaitGroup
	// Should fault fail the test, the clients stop at once, before the
	// test ends.
	defer wg.Wait()
	defer cancel()
	defer ended()
	for w := range 3 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for run := 0; ; run++ {
				done := faulted.Load()
				got, err := dropAndResume(tctx, t, base, nodes, rng, w*10000+run)
				if tctx.Err() != nil {
					if !t.Failed() {
						t.Errorf("worker %d run %d hangs: no answer within %v", w, run, hangAfter)
					}
					return
				}
				for i, n := range got {
					if n != i+1 {
						t.Errorf("worker %d run %d: event %d is %d (a gap or a repeat without notice): %v", w, run, i+1, n, got)
						return
					}
				}
				mu.Lock()
				switch {
				case err == nil && len(got) == 100:
					complete++
					if done {
						completeAfter++
					}
				case err != nil:
					// An HTTP error tells the client to retry (503) or to
					// start again (404); any other blames its request.
					var status errStatus
					if errors.As(err, &status) && status.code != http.StatusServiceUnavailable && status.code != http.StatusNotFound {
						t.Errorf("worker %d run %d: %v, want 503 or 404", w, run, err)
					}
					told++
					firstTold()
				default:
					t.Errorf("worker %d run %d: answered after %d of 100 events, without notice", w, run, len(got))
				}
				if done {
					after++
				}
				// Recovery, not its speed: a client told to retry (503)
				// shortly after the fault, while the nodes find the
				// Redis that took over, calls again.
				enough := completeAfter >= 3 || after >= 60
				mu.Unlock()
				if enough || t.Failed() {
					return
				}
				if err != nil {
					<-over
				}
			}
		})
	}
	fault(toldCh)
	ended()
	wg.Wait()
	t.Logf("%d calls complete, %d told of an error; %d calls after the fault, %d complete", complete, told, after, completeAfter)
	return completeAfter
}

// TestClusterMasterFailoverUnderLoad kills the Redis Cluster master that
// holds a busy session, waits until a replica took over, then restarts
// the old master; calls go on completing.
func TestClusterMasterFailoverUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster; skipped with -short")
	}
	c := redistest.StartCluster(t)
	nodes := newCluster(t, c.URL, 2, streamer)
	base := join(t, nodes[0])
	master := c.MasterOf(t, "{"+base.SessionID+"}")
	if underLoad(t, base, nodes, func(<-chan struct{}) { c.Failover(t, master) }) == 0 {
		t.Error("no call completed after the failover")
	}
	// The old master comes back, as a replica of the new one.
	c.Rejoin(t, master)
}

// TestRedisKillUnderLoad kills Redis with kill -9 (one server, or every
// node of a Cluster at once) while two nodes stream the calls of a
// session and run its tasks, and restarts it. With an append-only file
// the session goes on, and its tasks end and read the same on every
// node, the one whose work ended while Redis was down included; without,
// its clients are told (404, start again) and a new session works.
func TestRedisKillUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("kills Redis under load; skipped with -short")
	}
	for _, tc := range []struct {
		name       string
		start      func(testing.TB) (url string, redis restartable)
		persistent bool
		// Redis stays down until a client was told of the outage. Not
		// on a Cluster: there each backplane call retries for a while
		// (ClusterMaxRetries), so that the calls ride out a short outage
		// and every message a stream sends while the whole Cluster is
		// down waits out those retries.
		holdDown bool
	}{
		{"persistent", func(t testing.TB) (string, restartable) { s := redistest.StartPersistent(t); return s.URL, s }, true, true},
		{"empty", func(t testing.TB) (string, restartable) { s := redistest.Start(t); return s.URL, s }, false, true},
		{"cluster/persistent", func(t testing.TB) (string, restartable) { c := redistest.StartPersistentCluster(t); return c.URL, c }, true, false},
		{"cluster/empty", func(t testing.TB) (string, restartable) { c := redistest.StartCluster(t); return c.URL, c }, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, redis := tc.start(t)
			redisKillUnderLoad(t, url, redis, tc.persistent, tc.holdDown)
		})
	}
}

// restartable is a Redis, or a Redis Cluster, that a test kills and
// restarts.
type restartable interface {
	Stop()
	Restart(testing.TB)
}

// redisKillUnderLoad runs two nodes on the Redis at redisURL, starts
// tasks on each, and has underLoad's clients stream while redis is
// killed and restarted: the work of some tasks ends while Redis is down,
// of the others after it came back. persistent says whether Redis comes
// back with its data; holdDown, whether it stays down until a client was
// told of the outage.
func redisKillUnderLoad(t *testing.T, redisURL string, redis restartable, persistent, holdDown bool) {
	gates := map[string]chan struct{}{"down": make(chan struct{}), "back": make(chan struct{})}
	nodes := newCluster(t, redisURL, 2, func(r *specter.Router) {
		streamer(r)
		r.Tool("wait_for_gate", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
			gate := gates[p.String("gate")]
			return specter.NoReply(func(s *specter.Stream) specter.Result {
				select {
				case <-gate:
					return specter.Reply("passed the gate")
				case <-s.Done():
					return specter.Error(s.Err())
				}
			})
		}, specter.Description("Works until the test opens its gate"), specter.Tasks(specter.TaskRequired),
			params.Enum("gate", []string{"down", "back"}, params.Required()))
	})
	base := join(t, nodes[0])
	// Each task's work runs on one node, and the other node reads it from
	// Redis: tasks of the session, and of the stateless revision, which
	// have none.
	type task struct {
		id     string
		reader *node
	}
	down, back := map[string]any{"gate": "down"}, map[string]any{"gate": "back"}
	sessionTasks := []task{
		{startSessionTask(t, on(t, base, nodes[0]), "wait_for_gate", down).TaskID, nodes[1]},
		{startSessionTask(t, on(t, base, nodes[1]), "wait_for_gate", back).TaskID, nodes[0]},
	}
	statelessTasks := []task{
		{callTask(t, statelessTaskClient(nodes[1]), "tools/call", map[string]any{"name": "wait_for_gate", "arguments": down}).TaskID, nodes[0]},
		{callTask(t, statelessTaskClient(nodes[0]), "tools/call", map[string]any{"name": "wait_for_gate", "arguments": back}).TaskID, nodes[1]},
	}
	completeAfter := underLoad(t, base, nodes, func(told <-chan struct{}) {
		redis.Stop()
		close(gates["down"])
		if holdDown {
			<-told
		}
		redis.Restart(t)
		close(gates["back"])
	})
	for _, task := range statelessTasks {
		statelessTaskEndsEverywhere(t, nodes, task.id, task.reader, persistent)
	}
	if !persistent {
		// The session went with Redis's data, and its tasks with it:
		// every node tells the client so.
		for _, task := range sessionTasks {
			for _, n := range nodes {
				resp, err := on(t, base, n).Call(ctx(t), "tasks/get", map[string]any{"taskId": task.id})
				if resp == nil || resp.Status != http.StatusNotFound {
					t.Errorf("tasks/get of a task whose session went with Redis's data: %+v %v, want HTTP 404", resp, err)
				}
			}
		}
		fresh := join(t, nodes[1])
		if res, _, err := on(t, fresh, nodes[0]).CallTool(ctx(t), "test_simple_text", nil); err != nil || res.IsError {
			t.Fatalf("a new session after Redis came back empty: %+v %v", res, err)
		}
		return
	}
	if completeAfter == 0 {
		t.Error("no call completed after Redis came back with its data")
	}
	for _, task := range sessionTasks {
		taskEndsEverywhere(t, base, nodes, task.id, task.reader)
	}
}

// statelessTaskEndsEverywhere polls stateless task id through first, a
// node its work does not run on, until it completed, and checks that
// every node reads it so. Unless Redis kept its data, the task may be
// unknown for a while: its record went with the data, and the node that
// runs its work writes it again when the work ends.
func statelessTaskEndsEverywhere(t *testing.T, nodes []*node, id string, first *node, persistent bool) {
	t.Helper()
	tctx := ctx(t)
	for {
		resp, err := statelessTaskClient(first).Call(tctx, "tasks/get", map[string]any{"taskId": id})
		if err != nil {
			t.Fatalf("tasks/get of stateless task %s: %v", id, err)
		}
		var v taskView
		switch {
		case resp.Error != nil && !persistent && strings.Contains(resp.Error.Message, "unknown taskId"):
		case resp.Error != nil:
			t.Fatalf("tasks/get of stateless task %s: %+v", id, resp.Error)
		case json.Unmarshal(resp.Result, &v) != nil || v.Status != "working" && v.Status != "completed":
			t.Fatalf("stateless task %s: %s", id, resp.Result)
		case v.Status == "completed":
			for i, n := range nodes {
				if v := callTask(t, statelessTaskClient(n), "tasks/get", map[string]any{"taskId": id}); v.Status != "completed" || !strings.Contains(string(v.Result), "passed the gate") {
					t.Errorf("stateless task %s on node %d: %s %s, want completed as on the others", id, i, v.Status, v.Result)
				}
			}
			t.Logf("stateless task %s ended completed", id)
			return
		}
		select {
		case <-tctx.Done():
			t.Fatalf("stateless task %s never ended after Redis came back", id)
		case <-time.After(50 * time.Millisecond): // polling, as a client does
		}
	}
}

// taskEndsEverywhere polls task id through first, a node its work does
// not run on, until it ended, completed or failed with a reason, and
// checks that every node reads the same; a task left working fails the
// test.
func taskEndsEverywhere(t *testing.T, base *mcptest.Client, nodes []*node, id string, first *node) {
	t.Helper()
	tctx := ctx(t)
	var end *mcp.SessionTask
	for end == nil {
		switch s := taskStatus(t, on(t, base, first), id); s.Status {
		case "completed", "failed", "cancelled":
			end = s
		case "working":
			select {
			case <-tctx.Done():
				t.Fatalf("task %s stays working after Redis came back", id)
			case <-time.After(50 * time.Millisecond): // polling, as a client does
			}
		default:
			t.Fatalf("task %s: %+v", id, s)
		}
	}
	switch {
	case end.Status == "completed":
		resp, err := on(t, base, first).Call(tctx, "tasks/result", map[string]any{"taskId": id})
		if err != nil || resp.Error != nil || !strings.Contains(string(resp.Result), "passed the gate") {
			t.Errorf("tasks/result of task %s: %s %v %+v", id, resp.Result, err, resp.Error)
		}
	case end.StatusMessage == "":
		t.Errorf("task %s ended %s without a reason", id, end.Status)
	}
	t.Logf("task %s ended %s %q", id, end.Status, end.StatusMessage)
	for i, n := range nodes {
		if s := taskStatus(t, on(t, base, n), id); s.Status != end.Status || s.StatusMessage != end.StatusMessage {
			t.Errorf("task %s on node %d: %s %q, want %s %q as on the others", id, i, s.Status, s.StatusMessage, end.Status, end.StatusMessage)
		}
	}
}

// TestClusterSlotMigrationUnderLoad moves the slot of a busy session to
// another master, a key at a time, as a live resharding does, while its
// clients stream.
func TestClusterSlotMigrationUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster; skipped with -short")
	}
	c := redistest.StartCluster(t)
	nodes := newCluster(t, c.URL, 2, streamer)
	base := join(t, nodes[0])
	if underLoad(t, base, nodes, func(<-chan struct{}) { c.Migrate(t, "{"+base.SessionID+"}").Finish(t) }) == 0 {
		t.Error("no call completed after the migration")
	}
}

// TestResumeOfSessionLostWithRedis resumes a stream, on a node that
// served the session a moment ago, after Redis restarted without its
// data: the session went with the stream, so the client is told to start
// again (404), not that it named no stream (400).
func TestResumeOfSessionLostWithRedis(t *testing.T) {
	redis := redistest.Start(t)
	nodes, a, last := endedEarly(t, redis.URL)
	// B serves the session: a call, then a notification that gives the
	// call's id back, after which B has nothing to tell Redis for a while.
	b := on(t, a, nodes[1])
	if _, err := b.Call(ctx(t), "ping", nil); err != nil {
		t.Fatal(err)
	}
	if status, err := b.Notify(ctx(t), "notifications/roots/list_changed", nil); err != nil || status != http.StatusAccepted {
		t.Fatalf("a notification through B: %d %v", status, err)
	}
	redis.Stop()
	redis.Restart(t)
	req, _ := b.NewRequest(ctx(t), http.MethodGet, nil)
	req.Header.Set("Last-Event-ID", last)
	hr, err := b.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(hr.Body)
	hr.Body.Close()
	if hr.StatusCode != http.StatusNotFound {
		t.Fatalf("resume of a session Redis lost: HTTP %d %s, want 404", hr.StatusCode, body)
	}
}
