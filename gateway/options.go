package gateway

import (
	"github.com/specter-mcp/specter/client/host"
	"github.com/specter-mcp/specter/transform"
)

// An Option configures a Mount.
type Option func(*config)

type config struct {
	prefixes   map[string]string // by server; absent: server + host.Separator
	noPrefix   bool
	transforms map[string]map[string]transform.Tool // by server, then tool name on the server
}

func newConfig(opts []Option) *config {
	c := &config{prefixes: map[string]string{}, transforms: map[string]map[string]transform.Tool{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// prefix is what names of server's tools and prompts start with.
func (c *config) prefix(server string) string {
	if p, ok := c.prefixes[server]; ok {
		return p
	}
	if c.noPrefix {
		return ""
	}
	return server + host.Separator
}

// Prefix re-exports server's tools and prompts as prefix+name instead of
// "server.name"; an empty prefix re-exports them under their own names.
// Two servers that re-export one name conflict: the second is skipped and
// reported.
func Prefix(server, prefix string) Option {
	return func(c *config) { c.prefixes[server] = prefix }
}

// NoPrefix re-exports the tools and prompts of every server not named in
// a Prefix under their own names.
func NoPrefix() Option { return func(c *config) { c.noPrefix = true } }

// Transform reshapes server's tools as they are re-exported, by their
// names on the server (see package transform): a transformation's Name
// replaces the name the prefix goes before. A transformation that does
// not fit its tool (an argument the tool lacks, say) skips the tool, and
// is reported.
func Transform(server string, tools map[string]transform.Tool) Option {
	return func(c *config) { c.transforms[server] = tools }
}
