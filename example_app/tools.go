package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// longTaskStep is how long each step of long_task takes.
const longTaskStep = 200 * time.Millisecond

// Name is the form whoami shows the user: its tags are the requested
// schema and the validation of the answer.
type Name struct {
	Name string `json:"name" title:"Name" description:"What should I call you?" validate:"required,min=1,max=100"`
}

// GetStudy is the input of the get_study tool. Its tags are the tool's
// input schema and its validation.
type GetStudy struct {
	ID string `json:"id" validate:"required" description:"The study id, such as 042; complete my_app://studies/{id} to find one"`
}

// declareTools declares the tools. Which of them a caller may use is
// decided per request by connect, from the caller's plan.
func declareTools(r *specter.Router, repo *studyRepo) {
	r.Tool("foo", foo,
		specter.Description("Perform a Foo with a Bar"),
		specter.ReadOnly(),
		params.String("bar", params.Validate("required,min=1,max=64"), params.Description("The Bar to Foo with")),
	)

	specter.Tool(r, "get_study", func(in GetStudy, _ *specter.Request, _ *specter.Context) specter.Result {
		s, ok := repo.Get(in.ID)
		if !ok {
			// The model reads this and can try another id.
			return specter.Error(specter.NewToolError(fmt.Sprintf("no study has the id %q; ids are three digits, such as 042", in.ID)))
		}
		return specter.Reply(s)
	}, specter.Description("Get a study by its id"), specter.ReadOnly())

	// long_task is on the ultra plan only (connect's allow-list), and the
	// token must also grant the jobs:run scope: a token without it gets
	// 403 with a challenge naming the scope, so that the client can ask
	// the user for it (step-up authorization).
	r.Tool("long_task", longTask,
		specter.Description("Run a slow job step by step, reporting progress as it goes"),
		specter.ReadOnly(),
		specter.Scopes(scopeJobs),
		params.Integer("steps", params.Default(5), params.Validate("min=1,max=20"), params.Description("How many steps to run")),
	)

	r.Tool("whoami", whoami,
		specter.Description("Ask the user for their name and greet them"),
		specter.ReadOnly(),
	)
}

func foo(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
	bar := p.String("bar")
	// A map replies as structuredContent, plus its JSON as text.
	return specter.Reply(map[string]any{"foo": "Foo done with " + bar, "bar": bar, "length": len(bar)})
}

// longTask answers later: the handler only starts the work, which streams
// progress and logs on the request's event stream and then replies.
func longTask(p specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
	steps := p.Int("steps")
	return specter.NoReply(func(s *specter.Stream) specter.Result {
		start := time.Now()
		tick := time.NewTicker(longTaskStep)
		defer tick.Stop()
		for i := 1; i <= steps; i++ {
			select {
			case <-s.Done():
				// The client cancelled or the server is shutting down.
				return specter.Error(specter.NewToolError(fmt.Sprintf("long_task stopped after %d of %d steps", i-1, steps)))
			case <-tick.C:
			}
			if err := s.Progress(float64(i), float64(steps), fmt.Sprintf("step %d of %d", i, steps)); err != nil {
				return specter.Error(err)
			}
			if err := s.Log(mcp.LevelInfo, fmt.Sprintf("long_task finished step %d of %d", i, steps)); err != nil {
				return specter.Error(err)
			}
		}
		return specter.Reply(map[string]any{"steps": steps, "elapsedMs": time.Since(start).Milliseconds()})
	})
}

// whoami asks the user for their name through the client (elicitation)
// and waits for the answer. Clients that cannot ask get the name the
// server knows from the caller's token.
func whoami(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
	answer, action, err := specter.Elicit[Name](c, "What is your name?")
	if errors.Is(err, specter.ErrCapability) {
		u, _ := specter.Assigned[user](c, "user")
		return specter.Reply(fmt.Sprintf("Your client cannot ask for your name, but your token says you are %s.", u.Name))
	}
	if err != nil {
		return specter.Error(err)
	}
	switch action {
	case specter.ElicitAccept:
		name := strings.TrimSpace(answer.Name)
		if name == "" {
			return specter.Error(specter.NewToolError("the user accepted but left the name empty"))
		}
		return specter.Reply(fmt.Sprintf("Hello, %s!", name))
	case specter.ElicitDecline:
		return specter.Reply("You prefer not to say your name. Hello anyway!")
	}
	return specter.Reply("You cancelled the question; no greeting then.")
}
