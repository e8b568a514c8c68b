package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/specter-mcp/specter/mcp"
)

// Ping checks that the server answers: with ping in the session era,
// with server/discover in 2026-07-28, which has no ping.
func (c *Client) Ping(ctx context.Context) error {
	if c.Stateless() {
		return c.call(ctx, mcp.MethodDiscover, nil, nil, nil)
	}
	return c.call(ctx, mcp.MethodPing, nil, nil, nil)
}

// SetLogLevel asks a session-era server for log messages at level and
// above. In 2026-07-28 the level travels in every request's _meta; set
// Options.LogLevel instead.
func (c *Client) SetLogLevel(ctx context.Context, level mcp.LoggingLevel) error {
	if c.Stateless() {
		c.mu.Lock()
		c.opts.LogLevel = level
		c.mu.Unlock()
		return nil
	}
	return c.call(ctx, mcp.MethodSetLevel, mcp.SetLevelParams{Level: level}, nil, nil)
}

// ListTools returns one page of tools; cursor is "" for the first. Tools
// whose x-mcp-header annotations break the rules are left out (and
// logged), as the specification requires; the others' annotations are
// kept for the Mcp-Param-* headers of later calls.
func (c *Client) ListTools(ctx context.Context, cursor string, opts ...CallOption) (*mcp.ListToolsResult, error) {
	var res mcp.ListToolsResult
	if err := c.call(ctx, mcp.MethodToolsList, mcp.PaginatedParams{Cursor: cursor}, &res, collect(opts)); err != nil {
		return nil, err
	}
	kept := res.Tools[:0]
	for _, t := range res.Tools {
		ph, err := toolHeaders(t.InputSchema)
		if err != nil {
			if c.opts.Logger != nil {
				c.opts.Logger.Warn().Str("tool", t.Name).Err(err).Msg("tool rejected: invalid x-mcp-header")
			}
			continue
		}
		c.mu.Lock()
		c.headers[t.Name] = ph
		if t.Execution != nil && t.Execution.TaskSupport != "" {
			c.taskSupport[t.Name] = t.Execution.TaskSupport
		} else {
			delete(c.taskSupport, t.Name)
		}
		c.mu.Unlock()
		c.remember(t)
		kept = append(kept, t)
	}
	res.Tools = kept
	return &res, nil
}

// Tools iterates over every tool of every page.
func (c *Client) Tools(ctx context.Context) iter.Seq2[mcp.Tool, error] {
	return pages(c, mcp.MethodToolsList, func(cursor string) ([]mcp.Tool, string, error) {
		r, err := c.ListTools(ctx, cursor)
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	})
}

// CallTool calls a tool with arguments (any value that encodes as a JSON
// object, or nil). A tool's own failure is a result with IsError set; a
// protocol failure is an error.
//
// A tool whose execution.taskSupport (as the last tools/list gave it) is
// "required", or "optional" with AsTask, runs as a task when the server
// offers task-augmented calls: CallTool follows the task to its end and
// returns its result, and cancels it if ctx ends first.
func (c *Client) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*mcp.CallToolResult, error) {
	raw, err := argumentsOf(args)
	if err != nil {
		return nil, err
	}
	o := collect(opts)
	if c.runsAsTask(name, o) {
		if o == nil {
			o = &callOptions{}
		}
		o.task = true
	}
	var res mcp.CallToolResult
	if err := c.call(ctx, mcp.MethodToolsCall, mcp.CallToolParams{Name: name, Arguments: raw}, &res, o); err != nil {
		return nil, err
	}
	return &res, nil
}

func argumentsOf(args any) (json.RawMessage, error) {
	switch a := args.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return a, nil
	}
	return json.Marshal(args)
}

// ListPrompts returns one page of prompts.
func (c *Client) ListPrompts(ctx context.Context, cursor string, opts ...CallOption) (*mcp.ListPromptsResult, error) {
	var res mcp.ListPromptsResult
	if err := c.call(ctx, mcp.MethodPromptsList, mcp.PaginatedParams{Cursor: cursor}, &res, collect(opts)); err != nil {
		return nil, err
	}
	return &res, nil
}

// Prompts iterates over every prompt of every page.
func (c *Client) Prompts(ctx context.Context) iter.Seq2[mcp.Prompt, error] {
	return pages(c, mcp.MethodPromptsList, func(cursor string) ([]mcp.Prompt, string, error) {
		r, err := c.ListPrompts(ctx, cursor)
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	})
}

// GetPrompt renders a prompt with its arguments.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string, opts ...CallOption) (*mcp.GetPromptResult, error) {
	var res mcp.GetPromptResult
	if err := c.call(ctx, mcp.MethodPromptsGet, mcp.GetPromptParams{Name: name, Arguments: args}, &res, collect(opts)); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListResources returns one page of resources.
func (c *Client) ListResources(ctx context.Context, cursor string, opts ...CallOption) (*mcp.ListResourcesResult, error) {
	var res mcp.ListResourcesResult
	if err := c.call(ctx, mcp.MethodResourcesList, mcp.PaginatedParams{Cursor: cursor}, &res, collect(opts)); err != nil {
		return nil, err
	}
	return &res, nil
}

// Resources iterates over every resource of every page.
func (c *Client) Resources(ctx context.Context) iter.Seq2[mcp.Resource, error] {
	return pages(c, mcp.MethodResourcesList, func(cursor string) ([]mcp.Resource, string, error) {
		r, err := c.ListResources(ctx, cursor)
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
}

// ListResourceTemplates returns one page of resource templates.
func (c *Client) ListResourceTemplates(ctx context.Context, cursor string, opts ...CallOption) (*mcp.ListResourceTemplatesResult, error) {
	var res mcp.ListResourceTemplatesResult
	if err := c.call(ctx, mcp.MethodResourceTemplatesList, mcp.PaginatedParams{Cursor: cursor}, &res, collect(opts)); err != nil {
		return nil, err
	}
	return &res, nil
}

// ResourceTemplates iterates over every resource template of every page.
func (c *Client) ResourceTemplates(ctx context.Context) iter.Seq2[mcp.ResourceTemplate, error] {
	return pages(c, mcp.MethodResourceTemplatesList, func(cursor string) ([]mcp.ResourceTemplate, string, error) {
		r, err := c.ListResourceTemplates(ctx, cursor)
		if err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	})
}

// ReadResource reads a resource.
func (c *Client) ReadResource(ctx context.Context, uri string, opts ...CallOption) (*mcp.ReadResourceResult, error) {
	var res mcp.ReadResourceResult
	if err := c.call(ctx, mcp.MethodResourcesRead, mcp.ReadResourceParams{URI: uri}, &res, collect(opts)); err != nil {
		return nil, err
	}
	return &res, nil
}

// Subscribe asks a session-era server for notifications/resources/updated
// on uri; they reach Options.OnNotification. In 2026-07-28 use Listen.
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	return c.call(ctx, mcp.MethodResourcesSubscribe, mcp.ReadResourceParams{URI: uri}, nil, nil)
}

// Unsubscribe undoes Subscribe.
func (c *Client) Unsubscribe(ctx context.Context, uri string) error {
	return c.call(ctx, mcp.MethodResourcesUnsubscribe, mcp.ReadResourceParams{URI: uri}, nil, nil)
}

// Complete asks for completions of an argument.
func (c *Client) Complete(ctx context.Context, p mcp.CompleteParams) (*mcp.CompleteResult, error) {
	var res mcp.CompleteResult
	if err := c.call(ctx, mcp.MethodComplete, p, &res, nil); err != nil {
		return nil, err
	}
	return &res, nil
}

// pages iterates over the items of a paginated list, within the
// client's bounds: a list longer than MaxPages pages or MaxListItems
// items, one that comes back to a cursor it gave before, or one cut
// short by ctx ends with an error, never as a shorter list that looks
// whole.
func pages[T any](c *Client, method string, page func(cursor string) ([]T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		cursor, items := "", 0
		seen := map[string]bool{}
		for n := 1; ; n++ {
			got, next, err := page(cursor)
			if err != nil {
				yield(zero, err)
				return
			}
			if items += len(got); items > c.opts.MaxListItems {
				yield(zero, fmt.Errorf("mcp client: %s: the list has more than %d items (MaxListItems)", method, c.opts.MaxListItems))
				return
			}
			for _, it := range got {
				if !yield(it, nil) {
					return
				}
			}
			switch {
			case next == "":
				return
			case seen[next]:
				yield(zero, fmt.Errorf("mcp client: %s: the server gave the cursor %q twice", method, next))
				return
			case n >= c.opts.MaxPages:
				yield(zero, fmt.Errorf("mcp client: %s: the list has more than %d pages (MaxPages)", method, c.opts.MaxPages))
				return
			}
			seen[next] = true
			cursor = next
		}
	}
}

// Listen opens a 2026-07-28 subscriptions/listen stream for the
// notifications filter asks for, and delivers them to
// Options.OnNotification until ctx ends; it then returns ctx's error.
func (c *Client) Listen(ctx context.Context, filter mcp.SubscriptionFilter) error {
	return c.call(ctx, mcp.MethodSubscriptionsListen, mcp.SubscriptionsListenParams{Notifications: filter}, nil, nil)
}
