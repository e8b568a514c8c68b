package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/specter-mcp/specter/mcp"
)

// GetTask returns a task's current state (tasks/get).
func (c *Client) GetTask(ctx context.Context, id string) (*mcp.Task, error) {
	var t mcp.Task
	if err := c.call(ctx, mcp.MethodTasksGet, mcp.TaskParams{TaskID: id}, &t, nil); err != nil {
		return nil, err
	}
	return &t, nil
}

// UpdateTask answers an input_required task's questions (tasks/update).
func (c *Client) UpdateTask(ctx context.Context, id string, responses map[string]json.RawMessage) error {
	return c.call(ctx, mcp.MethodTasksUpdate, mcp.UpdateTaskParams{TaskID: id, InputResponses: responses}, nil, nil)
}

// CancelTask asks the server to stop a task (tasks/cancel). Cancellation
// is cooperative: the task may still complete.
func (c *Client) CancelTask(ctx context.Context, id string) error {
	return c.call(ctx, mcp.MethodTasksCancel, mcp.TaskParams{TaskID: id}, nil, nil)
}

// defaultPoll is the polling interval of a task whose server gave none;
// minPoll is the shortest the client takes, whatever the server says.
const (
	defaultPoll = time.Second
	minPoll     = 100 * time.Millisecond
)

// awaitTask follows a task the server made of a request until it ends:
// it polls tasks/get at the server's interval (never faster than
// minPoll), answers input requests with the client's handlers through
// tasks/update, at most MaxInputRounds times, and returns the result the
// request would have had. When ctx ends first, or the rounds run out, the
// task is cancelled.
func (c *Client) awaitTask(ctx context.Context, method string, created json.RawMessage) (json.RawMessage, error) {
	var t mcp.Task
	if err := json.Unmarshal(created, &t); err != nil || t.TaskID == "" {
		return nil, fmt.Errorf("mcp client: %s: a task result without a task id", method)
	}
	id := t.TaskID
	if t.Terminal() {
		// The work ended before the answer left: the CreateTaskResult
		// has the status but not the outcome, which tasks/get has.
		next, err := c.GetTask(ctx, id)
		if err != nil {
			return nil, err
		}
		t = *next
	}
	for rounds := 0; !t.Terminal(); {
		if t.Status == mcp.TaskInputRequired && len(t.InputRequests) > 0 {
			if rounds >= c.opts.MaxInputRounds {
				return nil, c.abandon(id, fmt.Errorf("mcp client: %s: task %s still asks for input after %d rounds", method, id, rounds))
			}
			rounds++
			reqs := make(map[string]json.RawMessage, len(t.InputRequests))
			for key, in := range t.InputRequests {
				reqs[key], _ = json.Marshal(in) // decoded from JSON: encodes
			}
			answers, err := c.answerAll(ctx, reqs)
			if err != nil {
				return nil, c.abandon(id, fmt.Errorf("mcp client: %s: task %s: answering input requests: %w", method, id, err))
			}
			var responses map[string]json.RawMessage
			_ = json.Unmarshal(answers, &responses)
			if err := c.UpdateTask(ctx, id, responses); err != nil {
				return nil, c.abandon(id, err)
			}
		}
		if err := c.wait(ctx, pollInterval(t.PollIntervalMs)); err != nil {
			return nil, c.abandon(id, fmt.Errorf("mcp client: %s: task %s: %w", method, id, err))
		}
		next, err := c.GetTask(ctx, id)
		if err != nil {
			return nil, c.abandon(id, err)
		}
		t = *next
	}
	switch t.Status {
	case mcp.TaskCompleted:
		return t.Result, nil
	case mcp.TaskFailed:
		if t.Error != nil {
			return nil, fmt.Errorf("mcp client: %s: task %s failed: %w", method, id, t.Error)
		}
		return nil, fmt.Errorf("mcp client: %s: task %s failed", method, id)
	default:
		return nil, fmt.Errorf("mcp client: %s: task %s was cancelled", method, id)
	}
}

// pollInterval is the pause before the next tasks/get of a task whose
// server asked for ms milliseconds.
func pollInterval(ms int64) time.Duration {
	if ms <= 0 {
		return defaultPoll
	}
	return max(time.Duration(ms)*time.Millisecond, minPoll)
}

// wait pauses for d, or until ctx ends.
func (c *Client) wait(ctx context.Context, d time.Duration) error {
	if c.pause != nil {
		return c.pause(ctx, d)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// abandon cancels a task the client stops following, within the
// client's lifetime rather than the caller's ended context, and returns
// err.
func (c *Client) abandon(id string, err error) error {
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
	defer cancel()
	if cerr := c.CancelTask(ctx, id); cerr != nil && !errors.Is(cerr, context.Canceled) {
		c.warn(cerr, "cancelling an abandoned task")
	}
	return err
}
