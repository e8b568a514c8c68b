package interop

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

// TestToolTaskRequired: server-everything's research tool declares
// taskSupport "required". CallTool runs it as a task (2025-11-25) without
// being asked: task-augmented tools/call, tasks/get until the task needs
// input, tasks/result, on whose way the server's elicitation is answered.
func TestToolTaskRequired(t *testing.T) {
	c := ctx(t)
	var asked []string
	cl := connect(t, stdio(t, nil, everything, "stdio"), &client.Options{
		Elicitation: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			asked = append(asked, p.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"interpretation": "programming"}}, nil
		},
	})
	const tool = "simulate-research-query"
	var support string
	for x, err := range cl.Tools(c) {
		if err != nil {
			t.Fatal(err)
		}
		if x.Name == tool && x.Execution != nil {
			support = x.Execution.TaskSupport
		}
	}
	if support != "required" {
		t.Fatalf("%s has taskSupport %q: the test needs a tool that requires a task", tool, support)
	}
	got := textOf(t)(cl.CallTool(c, tool, map[string]any{"topic": "python", "ambiguous": true}))
	if !strings.Contains(got, "# Research Report: python (programming)") {
		t.Errorf("the report: %.200q", got)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "multiple interpretations") {
		t.Errorf("elicitations %q", asked)
	}
}

// TestServerAskedTasks: with Options.Tasks the client declares that it
// runs sampling and elicitation as tasks (2025-11-25), and
// server-everything then offers tools that ask for them so: the client
// answers with a task at once, and the server polls tasks/get and
// fetches tasks/result.
func TestServerAskedTasks(t *testing.T) {
	c := ctx(t)
	cl := connect(t, stdio(t, nil, everything, "stdio"), &client.Options{
		Tasks: true,
		Sampling: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "interop-model", Content: mcp.SamplingContent{mcp.Text("sampled: " + p.Messages[0].Content.Text())}}, nil
		},
		Elicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "favoriteColor": "green"}}, nil
		},
	})
	var names []string
	for x, err := range cl.Tools(c) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, x.Name)
	}
	for _, want := range []string{"trigger-sampling-request-async", "trigger-elicitation-request-async"} {
		if !slices.Contains(names, want) {
			t.Fatalf("server-everything offers no %s to this client: it did not see the tasks capability", want)
		}
	}
	got := textOf(t)(cl.CallTool(c, "trigger-sampling-request-async", map[string]any{"prompt": "hello"}))
	if !strings.HasPrefix(got, "[COMPLETED] Async sampling completed!") || !strings.Contains(got, "sampled: Resource trigger-sampling-request-async context: hello") {
		t.Errorf("sampling as a task: %q", got)
	}
	res, err := cl.CallTool(c, "trigger-elicitation-request-async", nil)
	if got := textOf(t)(res, err); got != "[COMPLETED] User provided the requested information!" || !strings.Contains(res.Content[1].(*mcp.TextContent).Text, "- Name: Ada") {
		t.Errorf("elicitation as a task: %q %+v", got, res.Content)
	}
}

// TestSamplingTyped: server-everything's sampling request reaches the
// handler as typed content, and the typed answer reaches the server.
func TestSamplingTyped(t *testing.T) {
	c := ctx(t)
	var asked mcp.Content
	cl := connect(t, stdio(t, nil, everything, "stdio"), &client.Options{
		Sampling: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			asked = p.Messages[0].Content[0]
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "interop-model", Content: mcp.SamplingContent{mcp.Text("typed answer")}}, nil
		},
	})
	if _, err := cl.ListTools(c, ""); err != nil {
		t.Fatal(err)
	}
	got := textOf(t)(cl.CallTool(c, "trigger-sampling-request", map[string]any{"prompt": "hello"}))
	if tc, ok := asked.(*mcp.TextContent); !ok || tc.Text != "Resource trigger-sampling-request context: hello" {
		t.Errorf("the handler got %#v", asked)
	}
	if !strings.Contains(got, `"text": "typed answer"`) {
		t.Errorf("the server got %q", got)
	}
}
