package client_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

const skillMD = "---\nname: pdf-tools\ndescription: Works with PDF files\n---\n\n# PDF tools\n"

// skillRouter serves one skill with two files.
func skillRouter(t *testing.T) *specter.Router {
	r := specter.NewRouter("skills", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Skill(fstest.MapFS{
		"SKILL.md":     {Data: []byte(skillMD)},
		"reference.md": {Data: []byte("Page sizes: A4, Letter.\n")},
	})
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	return r
}

// listSkill lists the server's one skill.
func listSkill(t *testing.T, c *client.Client) mcp.Skill {
	t.Helper()
	list, err := c.ListSkills(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Skills) != 1 || list.Skills[0].URI != "skill://pdf-tools/SKILL.md" {
		t.Fatalf("skills %+v", list.Skills)
	}
	return list.Skills[0]
}

// TestSkills lists a Specter server's skill and loads its files, each
// verified against the listed digest and size.
func TestSkills(t *testing.T) {
	c := connect(t, client.InMemory(skillRouter(t).Handler()), nil)
	skill := listSkill(t, c)
	body, err := c.LoadSkill(t.Context(), skill)
	if err != nil || string(body) != skillMD {
		t.Fatalf("SKILL.md: %q, %v", body, err)
	}
	ref, err := c.ReadSkillFile(t.Context(), skill, "skill://pdf-tools/reference.md")
	if err != nil || !strings.HasPrefix(string(ref), "Page sizes") {
		t.Errorf("reference.md: %q, %v", ref, err)
	}
}

// TestSkillTampered refuses a file whose bytes differ from the listed
// digest: a server (or a proxy) that changed a file after listing it.
func TestSkillTampered(t *testing.T) {
	r := skillRouter(t)
	// Rewrite one letter of reference.md in resources/read answers,
	// keeping its length.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec := httptest.NewRecorder()
		r.Handler().ServeHTTP(rec, req)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(bytes.ReplaceAll(rec.Body.Bytes(), []byte("Page sizes: A4"), []byte("Page sizes: A5")))
	}))
	t.Cleanup(srv.Close)
	c := connect(t, &client.HTTPTransport{URL: srv.URL}, nil)
	skill := listSkill(t, c)
	if _, err := c.ReadSkillFile(t.Context(), skill, "skill://pdf-tools/reference.md"); !errors.Is(err, client.ErrSkillVerification) {
		t.Fatalf("tampered file: %v, want ErrSkillVerification", err)
	}
	if _, err := c.LoadSkill(t.Context(), skill); err != nil {
		t.Errorf("the untouched SKILL.md: %v", err)
	}
}
