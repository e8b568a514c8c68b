package task

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

func TestRefusal(t *testing.T) {
	tests := []struct {
		support          string
		stateless, asked bool
		want             int
	}{
		{Required, true, false, jsonrpc.CodeMissingCapability},
		{Required, true, true, 0},
		{Required, false, false, jsonrpc.CodeMethodNotFound},
		{Required, false, true, 0},
		{Optional, false, false, 0},
		{Optional, false, true, 0},
		{"", false, true, jsonrpc.CodeMethodNotFound},
		{"", false, false, 0},
		{"", true, true, 0},
	}
	for _, tt := range tests {
		got := Refusal("job", tt.support, tt.stateless, tt.asked)
		if (got == nil && tt.want != 0) || (got != nil && got.Code != tt.want) {
			t.Errorf("Refusal(%q, stateless %v, asked %v) = %v; want code %d", tt.support, tt.stateless, tt.asked, got, tt.want)
		}
	}
}

func TestTTL(t *testing.T) {
	for raw, want := range map[string]time.Duration{
		`{"ttl":1500}`: 1500 * time.Millisecond, `{"ttl":99999999}`: time.Minute, `{}`: time.Minute, `[`: time.Minute,
	} {
		if got := TTL(json.RawMessage(raw), time.Minute); got != want {
			t.Errorf("TTL(%s) = %v; want %v", raw, got, want)
		}
	}
}

func TestRelate(t *testing.T) {
	for params, want := range map[string]string{
		`{}`:         `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"T"}}}`,
		`{"a":true}`: `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"T"}},"a":true}`,
	} {
		if got := string(Relate([]byte(params), "T")); got != want {
			t.Errorf("Relate(%s) = %s; want %s", params, got, want)
		}
	}
}

// A session's task: started on A, it notifies its changes, is listed and
// answered on B, and tasks/result waits for its end.
func TestStartAndAnswerInASession(t *testing.T) {
	a, b := cluster(t)
	var (
		work    sync.WaitGroup
		mu      sync.Mutex
		notices []string
	)
	release := make(chan struct{})
	created, err := a.Start(context.Background(), "s:1", time.Hour, func(p []byte) {
		mu.Lock()
		notices = append(notices, string(p))
		mu.Unlock()
	}, &work, func(ctx context.Context, tk *Task) (json.RawMessage, *jsonrpc.Error) {
		<-release
		return json.RawMessage(`{"content":[],"isError":true}`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := created.Reply(true).(*mcp.CreateTaskResult); !ok || r.Task.Status != Working {
		t.Fatalf("created: %#v", created.Reply(true))
	}
	if list, err := b.Wires("s:1"); err != nil || len(list) != 1 || list[0].TaskID != created.ID {
		t.Fatalf("B lists %v, %v", list, err)
	}
	if list, err := b.Wires("s:2"); err != nil || len(list) != 0 {
		t.Fatalf("another session lists %v, %v", list, err)
	}
	result := make(chan string, 1)
	go func() {
		body, je := b.Answer(context.Background(), mcp.MethodTasksResult, created.ID, "s:1")
		if je != nil {
			body = json.RawMessage(je.Error())
		}
		result <- string(body)
	}()
	close(release)
	work.Wait()
	if got := <-result; !strings.Contains(got, `"isError":true`) || !strings.Contains(got, created.ID) {
		t.Errorf("tasks/result: %s", got)
	}
	body, je := b.Answer(context.Background(), mcp.MethodTasksGet, created.ID, "s:1")
	if je != nil || !strings.Contains(string(body), `"status":"failed"`) {
		t.Errorf("tasks/get: %s %v; want failed, as a result with isError fails the task", body, je)
	}
	var je2 *jsonrpc.Error
	if _, err := b.Answer(context.Background(), mcp.MethodTasksCancel, created.ID, "s:1"); !errors.As(err, &je2) || je2.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("cancel of a task that ended: %v", err)
	}
	if _, err := b.Answer(context.Background(), mcp.MethodTasksGet, "nope", "s:1"); !errors.As(err, &je2) || je2.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("an unknown task: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notices) != 1 || !strings.Contains(notices[0], mcp.NotificationTaskStatus) {
		t.Errorf("notices %q; want one status notification", notices)
	}
}
