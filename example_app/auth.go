package main

import (
	"crypto/subtle"
	"fmt"
	"strings"

	"github.com/specter-mcp/specter"
)

// plan decides which tools a user may call.
type plan string

const (
	planBasic plan = "basic"
	planUltra plan = "ultra"
)

// tools lists the tools of the plan, for the connect allow-list.
func (p plan) tools() []string {
	basic := []string{"foo", "get_study", "whoami"}
	if p == planUltra {
		return append(basic, "long_task")
	}
	return basic
}

// user is an authenticated caller. Connect assigns it under "user".
type user struct {
	ID   string
	Name string
	Plan plan
}

// keyring maps the demo API keys to their users. A real application would
// look keys up in its database, or verify a JWT with auth.JWT.
type keyring []struct {
	key  string
	user user
}

func newKeyring(basicKey, ultraKey string) keyring {
	return keyring{
		{basicKey, user{ID: "user-basic", Name: "Basil Basic", Plan: planBasic}},
		{ultraKey, user{ID: "user-ultra", Name: "Ursula Ultra", Plan: planUltra}},
	}
}

// lookup finds the user of key. Every key is compared in constant time so
// that response timing tells nothing about how close a guess was.
func (k keyring) lookup(key string) (user, bool) {
	var (
		found user
		ok    bool
	)
	for _, e := range k {
		if subtle.ConstantTimeCompare([]byte(e.key), []byte(key)) == 1 {
			found, ok = e.user, true
		}
	}
	return found, ok
}

// connect runs on every MCP request: it authenticates the bearer key and
// decides what the caller sees. Tools outside the plan are hidden from
// tools/list and refused exactly like tools that do not exist.
func (k keyring) connect(c *specter.Context) error {
	scheme, key, _ := strings.Cut(c.HTTPRequest().Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || key == "" {
		return specter.Unauthorized("send your API key as Authorization: Bearer <key>")
	}
	u, ok := k.lookup(strings.TrimSpace(key))
	if !ok {
		return specter.Unauthorized("unknown API key")
	}
	c.SetPrincipal(u.ID)
	c.Assign("user", u)
	c.PutInstructions(fmt.Sprintf("You are helping %s, who is on the %s plan. Tools available on this plan: %s.",
		u.Name, u.Plan, strings.Join(u.Plan.tools(), ", ")))
	c.PutTools(u.Plan.tools()...)
	return nil
}
