package client

import (
	"context"
	"errors"

	"github.com/specter-mcp/specter/mcp"
)

// RootsChanged tells the server that the roots Options.Roots answers with
// have changed, so that it asks for them again: in the session era with
// notifications/roots/list_changed. In 2026-07-28 a server asks for the
// roots within each request that needs them, so the next request sees
// the new ones and there is nothing to send.
func (c *Client) RootsChanged(ctx context.Context) error {
	if c.opts.Roots == nil {
		return errors.New("mcp client: RootsChanged needs Options.Roots, which declares the roots")
	}
	if c.Stateless() {
		return nil
	}
	return c.notify(ctx, mcp.NotificationRootsChanged, nil)
}
