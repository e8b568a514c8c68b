package transport

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/specter-mcp/specter/internal/methods"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/stateless"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Versions are the protocol revisions a server offers: the session-era
// ones initialize negotiates among, newest first, and those served
// statelessly. The zero value offers none; AllVersions offers every one.
type Versions struct {
	Session   []string
	Stateless []string
}

// AllVersions offers every revision this module speaks.
func AllVersions() Versions {
	return Versions{Session: mcp.SessionVersions, Stateless: stateless.Versions}
}

// PinVersions offers the revisions named, at least one, each a revision
// this module speaks; it fails for any other.
func PinVersions(names ...string) (Versions, error) {
	if len(names) == 0 {
		return Versions{}, fmt.Errorf("specter: Versions names no protocol revision")
	}
	all := AllVersions()
	for _, v := range names {
		if !slices.Contains(all.Session, v) && !slices.Contains(all.Stateless, v) {
			return Versions{}, fmt.Errorf("specter: Versions: %q is not a protocol revision this server speaks (%v, %v)", v, all.Stateless, all.Session)
		}
	}
	keep := func(v string) bool { return !slices.Contains(names, v) }
	return Versions{Session: slices.DeleteFunc(slices.Clone(all.Session), keep), Stateless: slices.DeleteFunc(slices.Clone(all.Stateless), keep)}, nil
}

// Negotiate picks a session's revision: the client's if offered,
// otherwise the newest offered, which the client may then refuse. It
// fails when no session-era revision is offered.
func (v Versions) Negotiate(requested string) (string, *refusal.Error) {
	if version := methods.Negotiate(requested, v.Session); version != "" {
		return version, nil
	}
	return "", &refusal.Error{Status: http.StatusBadRequest, RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Unsupported protocol version %q: this server serves no session", requested).
		WithData(map[string]any{"supported": v.Stateless, "requested": requested})}
}
