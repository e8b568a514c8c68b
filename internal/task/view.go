package task

import (
	"encoding/json"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// View returns the task on the 2026-07-28 wire. Without detail it is the
// answer to the call that created the task (resultType "task"); with
// detail it is the answer to tasks/get, carrying the open questions, the
// result or the error.
func (s *State) View(detailed bool) *mcp.Task {
	v := &mcp.Task{TaskID: s.ID, Status: s.Status, CreatedAt: stamp(s.Created), LastUpdatedAt: stamp(s.Updated),
		PollIntervalMs: PollInterval.Milliseconds()}
	ttl := s.TTL.Milliseconds()
	v.TTLMs = &ttl
	v.ResultType = "task"
	if detailed {
		v.ResultType = mcp.ResultComplete
		switch s.Status {
		case InputRequired:
			v.InputRequests = s.Inputs
		case Completed:
			v.Result = s.Result
		case Failed:
			v.Error = s.Error
		}
	}
	return v
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Wire returns the task on the wire of revision 2025-11-25.
func (s *State) Wire() *mcp.SessionTask {
	return &mcp.SessionTask{TaskID: s.ID, Status: s.Status, StatusMessage: s.Message, CreatedAt: stamp(s.Created),
		LastUpdatedAt: stamp(s.Updated), TTL: s.TTL.Milliseconds(), PollInterval: PollInterval.Milliseconds()}
}

// Payload returns what tasks/result answers for a task that ended (the
// result or the error its request would have had), the result carrying
// the task's id in its _meta.
func (s *State) Payload() (json.RawMessage, *jsonrpc.Error) {
	switch {
	case s.Error != nil:
		return nil, s.Error
	case s.Status == Cancelled:
		return nil, jsonrpc.Errorf(jsonrpc.CodeRequestCancelled, "The task was cancelled")
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(s.Result, &res) != nil || res == nil {
		res = map[string]json.RawMessage{}
	}
	var meta map[string]any
	_ = json.Unmarshal(res["_meta"], &meta)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcp.MetaRelatedTask] = map[string]string{"taskId": s.ID}
	res["_meta"], _ = json.Marshal(meta)
	out, _ := json.Marshal(res)
	return out, nil
}
