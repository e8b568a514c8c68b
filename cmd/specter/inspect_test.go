package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// wantVersion is the revision each era negotiates with the example app.
var wantVersion = map[string]string{"stateless": "2026-07-28", "session": "2025-11-25"}

// TestInspect runs inspect against the example app over stdio and HTTP,
// in both eras: the tables, and --json with every list whole (the app
// pages its 122 resources).
func TestInspect(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built command against the example app")
	}
	for _, s := range servers() {
		t.Run(s.name, func(t *testing.T) {
			era, flags := s.era, s.flags(t)
			r := runSpecter(t, s.env, append([]string{"inspect"}, flags...)...)
			if r.code != 0 {
				t.Fatalf("inspect exited %d; stderr:\n%s", r.code, r.stderr)
			}
			for _, want := range []string{
				`(?m)^Server\s+specter-example 1\.0\.0$`,
				`(?m)^Protocol\s+` + regexp.QuoteMeta(wantVersion[era]) + ` \(` + era + ` era\)$`,
				`(?m)^Capabilities\s+tools, prompts, resources \(subscribe\), logging, completions, io\.modelcontextprotocol/ui$`,
				`(?m)^Tools \(9\)$`,
				`(?m)^\s+NAME\s+PARAMETERS\s+DESCRIPTION$`,
				`(?m)^\s+foo\s+bar:string\*\s+Perform a Foo with a Bar$`,
				`(?m)^\s+long_task\s+steps:integer\s+Run a slow job`,
				`(?m)^Prompts \(1\)$`,
				`(?m)^\s+code_review\s+content\*\s+Review the provided code`,
				`(?m)^Resources \(122\)$`,
				`(?m)^\s+my_app://studies/120\s+study-120\s+application/json$`,
				`(?m)^\s+ui://studies/dashboard\s+studies-dashboard\s+text/html;profile=mcp-app$`,
				`(?m)^Resource templates \(1\)$`,
				`(?m)^\s+my_app://studies/\{id\}\s+study\s+application/json$`,
			} {
				if !regexp.MustCompile(want).MatchString(r.stdout) {
					t.Errorf("the tables do not match %s:\n%s", want, r.stdout)
				}
			}

			r = runSpecter(t, s.env, append([]string{"inspect", "--json"}, flags...)...)
			if r.code != 0 {
				t.Fatalf("inspect --json exited %d; stderr:\n%s", r.code, r.stderr)
			}
			var got struct {
				ServerInfo struct {
					Name string `json:"name"`
				} `json:"serverInfo"`
				ProtocolVersion string `json:"protocolVersion"`
				Capabilities    struct {
					Tools *struct{} `json:"tools"`
				} `json:"capabilities"`
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
				Prompts           []struct{ Name string } `json:"prompts"`
				Resources         []struct{ URI string }  `json:"resources"`
				ResourceTemplates []struct {
					URITemplate string `json:"uriTemplate"`
				} `json:"resourceTemplates"`
			}
			dec := json.NewDecoder(strings.NewReader(r.stdout))
			dec.DisallowUnknownFields()
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatalf("inspect --json printed no JSON object: %v\n%s", err, r.stdout)
			}
			if got.ServerInfo.Name != "specter-example" || got.ProtocolVersion != wantVersion[era] || got.Capabilities.Tools == nil {
				t.Errorf("serverInfo %q, protocolVersion %q, tools capability %v", got.ServerInfo.Name, got.ProtocolVersion, got.Capabilities.Tools != nil)
			}
			if len(got.Tools) != 9 || len(got.Prompts) != 1 || len(got.Resources) != 122 || len(got.ResourceTemplates) != 1 {
				t.Errorf("lists of %d tools, %d prompts, %d resources, %d templates; want 9, 1, 122 (every page), 1",
					len(got.Tools), len(got.Prompts), len(got.Resources), len(got.ResourceTemplates))
			}
			seen := map[string]bool{}
			for _, res := range got.Resources {
				if seen[res.URI] {
					t.Errorf("resource %s listed twice", res.URI)
				}
				seen[res.URI] = true
			}
			if len(got.Tools) > 0 && !strings.Contains(string(got.Tools[0].InputSchema), `"properties"`) {
				t.Errorf("tool %s has no input schema: %s", got.Tools[0].Name, got.Tools[0].InputSchema)
			}
		})
	}
}

// TestUsage checks the help of the command and of each subcommand, and
// the status of a wrong command line.
func TestUsage(t *testing.T) {
	r := runSpecter(t, nil, "help")
	if r.code != 0 {
		t.Errorf("specter help exited %d", r.code)
	}
	for _, name := range sortedCommands() {
		if !strings.Contains(r.stderr, "  "+name+" ") {
			t.Errorf("the help does not list %s:\n%s", name, r.stderr)
		}
		h := runSpecter(t, nil, name, "--help")
		if h.code != 0 || !strings.Contains(h.stderr, "Usage: specter "+name) || !strings.Contains(h.stderr, "-url") {
			t.Errorf("specter %s --help exited %d:\n%s", name, h.code, h.stderr)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{}, "Commands:"},
		{[]string{"nonsense"}, `unknown command "nonsense"`},
		{[]string{"inspect"}, "name a server"},
		{[]string{"inspect", "--url", "http://127.0.0.1:1/mcp", "--", "x"}, "name one server"},
		{[]string{"inspect", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"inspect", "--era", "future", "--", "x"}, "--era is stateless or session"},
		{[]string{"call", "--", "x"}, "name the tool"},
		{[]string{"read", "a", "b", "--", "x"}, "name one resource URI"},
	} {
		r := runSpecter(t, nil, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("specter %v exited %d, want 2 and %q:\n%s", c.args, r.code, c.want, r.stderr)
		}
	}
}
