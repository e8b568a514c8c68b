package integration

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"gopkg.in/yaml.v3"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/integration/internal/wire"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/principal"
)

const (
	pdfSkill = "skill://pdf-processing/SKILL.md"
	pdfForms = "skill://pdf-processing/references/FORMS.md"
)

// listSkills pages through skills/list and returns the entries and the
// number of pages, failing on a repeated cursor or a split entry.
func listSkills(t *testing.T, c *mcptest.StatelessClient) ([]mcp.Skill, int) {
	t.Helper()
	var all []mcp.Skill
	seen := map[string]bool{}
	cursor := ""
	for pages := 1; pages <= 50; pages++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp := call(t, c, "skills/list", params)
		if ttl, scope := hints(t, resp); ttl < 0 || scope == "" {
			t.Fatalf("caching hints ttlMs=%d cacheScope=%q", ttl, scope)
		}
		var res mcp.ListSkillsResult
		if err := resp.Decode(&res); err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Skills {
			if seen[s.URI] {
				t.Fatalf("%s listed twice", s.URI)
			}
			seen[s.URI] = true
		}
		all = append(all, res.Skills...)
		if res.NextCursor == "" {
			return all, pages
		}
		if seen["cursor "+res.NextCursor] {
			t.Fatalf("cursor %q repeats", res.NextCursor)
		}
		seen["cursor "+res.NextCursor] = true
		cursor = res.NextCursor
	}
	t.Fatal("skills/list did not end within 50 pages")
	return nil, 0
}

// readStateless reads a resource on the 2026-07-28 wire and returns its
// bytes and MIME type.
func readStateless(t *testing.T, c *mcptest.StatelessClient, uri string) ([]byte, string) {
	t.Helper()
	var res mcp.ReadResourceResult
	complete(t, call(t, c, "resources/read", map[string]any{"uri": uri}), &res)
	return contentBytes(t, uri, res)
}

func contentBytes(t *testing.T, uri string, res mcp.ReadResourceResult) ([]byte, string) {
	t.Helper()
	if len(res.Contents) != 1 || res.Contents[0].URI != uri {
		t.Fatalf("read %s: contents %+v", uri, res.Contents)
	}
	c := res.Contents[0]
	switch {
	case c.Text != nil:
		return []byte(*c.Text), c.MIMEType
	case c.Blob != nil:
		b, err := base64.StdEncoding.DecodeString(*c.Blob)
		if err != nil {
			t.Fatalf("read %s: blob: %v", uri, err)
		}
		return b, c.MIMEType
	}
	t.Fatalf("read %s: neither text nor blob", uri)
	return nil, ""
}

// checkDigests reads every file of a skill entry and compares it with the
// entry's digest and size.
func checkDigests(t *testing.T, c *mcptest.StatelessClient, s mcp.Skill) {
	t.Helper()
	for _, r := range s.Resources {
		data, _ := readStateless(t, c, r.URI)
		sum := sha256.Sum256(data)
		if want := "sha256:" + hex.EncodeToString(sum[:]); r.Digest != want || r.Size != int64(len(data)) {
			t.Errorf("%s: entry digest %s size %d; served %d bytes with digest %s", r.URI, r.Digest, r.Size, len(data), want)
		}
	}
}

// readDirectory reads a directory on the 2026-07-28 wire, every page, and
// checks each child against the schema's Resource.
func readDirectory(t *testing.T, c *mcptest.StatelessClient, uri string) []mcp.Resource {
	t.Helper()
	v, err := wire.Load(mcp.Version20260728)
	if err != nil {
		t.Fatal(err)
	}
	var all []mcp.Resource
	cursor := ""
	for range 50 {
		params := map[string]any{"uri": uri}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var res struct {
			Resources  []json.RawMessage `json:"resources"`
			NextCursor string            `json:"nextCursor"`
		}
		complete(t, call(t, c, "resources/directory/read", params), &res)
		for _, raw := range res.Resources {
			if err := v.ValidateAs("Resource", raw); err != nil {
				t.Errorf("child of %s violates the schema's Resource: %v\n%s", uri, err, raw)
			}
			var r mcp.Resource
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			all = append(all, r)
		}
		if cursor = res.NextCursor; cursor == "" {
			return all
		}
	}
	t.Fatal("resources/directory/read did not end within 50 pages")
	return nil
}

// names lists "name=mimeType" of each resource.
func names(rs []mcp.Resource) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Name+"="+r.MIMEType)
	}
	return out
}

func TestSkillsStateless(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()

	var d mcp.DiscoverResult
	complete(t, call(t, c, "server/discover", nil), &d)
	if got := string(d.Capabilities.Extensions[mcp.ExtensionSkills]); got != `{"directoryRead":true}` {
		t.Errorf("skills extension declared as %q", got)
	}
	if d.Capabilities.Resources == nil {
		t.Error("the skills extension needs the resources capability")
	}

	skills, pages := listSkills(t, c)
	if pages != 1 || len(skills) != 1 {
		t.Fatalf("%d skills on %d pages, want the fixture's one", len(skills), pages)
	}
	s := skills[0]
	if s.URI != pdfSkill || len(s.Resources) != 2 || s.Resources[0].URI != pdfSkill || s.Resources[1].URI != pdfForms {
		t.Errorf("entry %+v", s)
	}
	checkDigests(t, c, s)

	// The entry's frontmatter is the file's, every key, as a client's
	// YAML reader sees it.
	md, mimeType := readStateless(t, c, pdfSkill)
	if mimeType != "text/markdown" {
		t.Errorf("SKILL.md served as %q", mimeType)
	}
	var fromFile, fromEntry map[string]any
	front := strings.SplitN(string(md), "---\n", 3)
	if len(front) != 3 || yaml.Unmarshal([]byte(front[1]), &fromFile) != nil || json.Unmarshal(s.Frontmatter, &fromEntry) != nil {
		t.Fatalf("frontmatter of %q / %s", md, s.Frontmatter)
	}
	want := map[string]any{"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents", "license": "Apache-2.0"}
	if !reflect.DeepEqual(fromFile, want) || !reflect.DeepEqual(fromEntry, want) {
		t.Errorf("frontmatter: file %v, entry %v, want %v", fromFile, fromEntry, want)
	}

	// skills/get answers the same entry, with caching hints and no cursor.
	resp := call(t, c, "skills/get", map[string]any{"uri": pdfSkill})
	var got mcp.GetSkillResult
	if ttl, scope := hints(t, resp); ttl != 0 || scope != mcp.CachePublic {
		t.Errorf("skills/get caching hints %d %q", ttl, scope)
	}
	complete(t, resp, &got)
	if !reflect.DeepEqual(got.Skill, s) || strings.Contains(string(resp.Result), "nextCursor") {
		t.Errorf("skills/get %s, want the listed entry without a cursor", resp.Result)
	}
	// The suite sends no Mcp-Name on the skills methods; none is required.
	r := c.Request("skills/get", map[string]any{"uri": pdfSkill})
	r.Header.Del("Mcp-Name")
	complete(t, send(t, c, r), nil)
	for _, uri := range []string{"skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md", pdfForms, "skill://pdf-processing", "test://static-text"} {
		r := c.Request("skills/get", map[string]any{"uri": uri})
		jerr := wantError(t, send(t, c, r), r.ID, http.StatusBadRequest, jsonrpc.CodeInvalidParams)
		if data, _ := jerr.Data.(map[string]any); data["uri"] != uri {
			t.Errorf("skills/get %s: error data %v, want the uri", uri, jerr.Data)
		}
	}

	// Directories: the skill's root and its sub-directory.
	if got, want := names(readDirectory(t, c, "skill://pdf-processing")), []string{"SKILL.md=text/markdown", "references=inode/directory"}; !reflect.DeepEqual(got, want) {
		t.Errorf("root children %v, want %v", got, want)
	}
	children := readDirectory(t, c, "skill://pdf-processing/references")
	if got, want := names(children), []string{"FORMS.md=text/markdown"}; !reflect.DeepEqual(got, want) || children[0].URI != pdfForms {
		t.Errorf("references children %+v, want %v", children, want)
	}
	for _, uri := range []string{pdfSkill, "skill://pdf-processing/", "skill://pdf-processing/nope", "skill://nope", "test://static-text"} {
		r := c.Request("resources/directory/read", map[string]any{"uri": uri})
		wantError(t, send(t, c, r), r.ID, http.StatusBadRequest, jsonrpc.CodeInvalidParams)
	}

	// resources/list shows SKILL.md as the skill; its other files are
	// readable but not listed.
	var list mcp.ListResourcesResult
	complete(t, call(t, c, "resources/list", nil), &list)
	var listed []mcp.Resource
	for _, res := range list.Resources {
		if strings.HasPrefix(res.URI, "skill://") {
			listed = append(listed, res)
		}
	}
	if len(listed) != 1 || listed[0].URI != pdfSkill || listed[0].Name != "pdf-processing" ||
		listed[0].Description != "Extract, fill, and assemble PDF documents" || listed[0].MIMEType != "text/markdown" {
		t.Errorf("skill resources in resources/list: %+v", listed)
	}
}

func TestSkillsSessionEra(t *testing.T) {
	e := newEnv(t, nil)
	c := e.session(nil, mcp.LatestSessionVersion)
	want := map[string][]byte{}
	for _, name := range []string{"SKILL.md", "references/FORMS.md"} {
		b, err := fs.ReadFile(fixture.PDFSkill, name)
		if err != nil {
			t.Fatal(err)
		}
		want["skill://pdf-processing/"+name] = b
	}
	for uri, b := range want {
		resp, err := c.Call(ctx(t), "resources/read", map[string]any{"uri": uri})
		if err != nil {
			t.Fatal(err)
		}
		var res mcp.ReadResourceResult
		if err := resp.Decode(&res); err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if got, mimeType := contentBytes(t, uri, res); string(got) != string(b) || mimeType != "text/markdown" {
			t.Errorf("read %s: %q as %s", uri, got, mimeType)
		}
	}
	resp, err := c.Call(ctx(t), "resources/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	var list mcp.ListResourcesResult
	if err := resp.Decode(&list); err != nil || !strings.Contains(string(resp.Result), `"uri":"`+pdfSkill+`","name":"pdf-processing"`) {
		t.Errorf("resources/list %s (%v) does not list the skill", resp.Result, err)
	}
	// The extension's methods belong to the 2026-07-28 wire.
	for _, method := range []string{"skills/list", "skills/get", "resources/directory/read"} {
		resp, err := c.Call(ctx(t), method, map[string]any{"uri": pdfSkill})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Error == nil || resp.Error.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s in a session: %s %+v, want -32601", method, resp.Result, resp.Error)
		}
	}
}

// skillDir is a skill directory named name whose other files are files.
func skillDir(name string, files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: " + name + "\ndescription: The " + name + " skill\n---\n\nBody of " + name + ".\n")}}
	for p, data := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func TestSkillsPaginateWholeEntries(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet, specter.PageSize(1))
	for i := range 3 {
		r.Skill(skillDir(fmt.Sprintf("skill-%d", i), map[string]string{"a.md": "a", "b.md": "b", "logo.png": "\x89PNG\r\n\x1a\n"}))
	}
	e := newEnv(t, r)
	c := e.stateless()
	skills, pages := listSkills(t, c)
	if pages != 3 || len(skills) != 3 {
		t.Fatalf("%d skills on %d pages, want one a page", len(skills), pages)
	}
	for i, s := range skills {
		if s.URI != fmt.Sprintf("skill://skill-%d/SKILL.md", i) || len(s.Resources) != 4 {
			t.Errorf("page %d: %+v", i, s)
		}
		checkDigests(t, c, s)
	}
	if _, mimeType := readStateless(t, c, "skill://skill-1/logo.png"); mimeType != "image/png" {
		t.Errorf("logo.png served as %q", mimeType)
	}
	if got, want := names(readDirectory(t, c, "skill://skill-2")), []string{"SKILL.md=text/markdown", "a.md=text/markdown", "b.md=text/markdown", "logo.png=image/png"}; !reflect.DeepEqual(got, want) {
		t.Errorf("children over four pages %v, want %v", got, want)
	}
}

// hiddenSkills serves three skills, one needing the skills:secret scope.
// Connect allows the resources named in X-Allow, if any, and authenticates
// a caller with the scopes in X-Scopes.
func hiddenSkills() *specter.Router {
	r := specter.NewRouter("t", "1", quiet)
	r.Skill(skillDir("open", map[string]string{"ref/a.md": "a"}))
	r.Skill(skillDir("other", map[string]string{"ref/a.md": "a"}))
	r.Skill(skillDir("secret", map[string]string{"ref/a.md": "a"}), specter.Scopes("skills:secret"))
	r.Connect(func(c *specter.Context) error {
		if allow := c.HTTPRequest().Header.Get("X-Allow"); allow != "" {
			c.AllowResources(strings.Split(allow, ",")...)
		}
		if scopes := c.HTTPRequest().Header.Get("X-Scopes"); scopes != "" {
			c.SetCaller(&principal.Principal{ID: "u", Scopes: strings.Split(scopes, ",")})
		}
		return nil
	})
	return r
}

func TestSkillsHiddenLookUnknown(t *testing.T) {
	e := newEnv(t, hiddenSkills())
	listed := func(c *mcptest.StatelessClient) []string {
		var uris []string
		skills, _ := listSkills(t, c)
		for _, s := range skills {
			uris = append(uris, s.URI)
		}
		return uris
	}
	unknown := func(c *mcptest.StatelessClient, method, uri string) {
		t.Helper()
		r := c.Request(method, map[string]any{"uri": uri})
		wantError(t, send(t, c, r), r.ID, http.StatusBadRequest, jsonrpc.CodeInvalidParams)
	}

	t.Run("scopes", func(t *testing.T) {
		c := e.stateless()
		if got := listed(c); !reflect.DeepEqual(got, []string{"skill://open/SKILL.md", "skill://other/SKILL.md"}) {
			t.Errorf("listed %v without the scope", got)
		}
		if _, scope := hints(t, call(t, c, "skills/list", nil)); scope != mcp.CachePrivate {
			t.Errorf("a list with a hidden skill is cached %q, want private", scope)
		}
		unknown(c, "skills/get", "skill://secret/SKILL.md")
		unknown(c, "resources/directory/read", "skill://secret")
		unknown(c, "resources/directory/read", "skill://secret/ref")
		// Reading a file is using the skill: 403, so the client can step up.
		r := c.Request("resources/read", map[string]any{"uri": "skill://secret/ref/a.md"})
		if resp := send(t, c, r); resp.Status != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "skills:secret") {
			t.Errorf("reading a scoped skill file: HTTP %d, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
		}

		c.Header.Set("X-Scopes", "skills:secret")
		if got := listed(c); len(got) != 3 {
			t.Errorf("listed %v with the scope", got)
		}
		complete(t, call(t, c, "skills/get", map[string]any{"uri": "skill://secret/SKILL.md"}), nil)
		if data, _ := readStateless(t, c, "skill://secret/ref/a.md"); string(data) != "a" {
			t.Errorf("read %q", data)
		}
	})

	t.Run("allow-list", func(t *testing.T) {
		c := e.stateless()
		c.Header.Set("X-Allow", "skill://open/SKILL.md")
		if got := listed(c); !reflect.DeepEqual(got, []string{"skill://open/SKILL.md"}) {
			t.Errorf("listed %v", got)
		}
		var d mcp.DiscoverResult
		if complete(t, call(t, c, "server/discover", nil), &d); d.Capabilities.Extensions[mcp.ExtensionSkills] == nil {
			t.Error("the extension is the server's, whatever one caller may see")
		}
		// The SKILL.md URI allows every file of the skill.
		complete(t, call(t, c, "skills/get", map[string]any{"uri": "skill://open/SKILL.md"}), nil)
		readStateless(t, c, "skill://open/ref/a.md")
		readDirectory(t, c, "skill://open/ref")
		unknown(c, "skills/get", "skill://other/SKILL.md")
		unknown(c, "resources/directory/read", "skill://other")
		unknown(c, "resources/read", "skill://other/ref/a.md")
		unknown(c, "resources/read", "skill://other/SKILL.md")

		s := e.session(e.newClient(nil), mcp.LatestSessionVersion)
		s.Header.Set("X-Allow", "skill://open/SKILL.md")
		resp, err := s.Call(ctx(t), "resources/read", map[string]any{"uri": "skill://other/ref/a.md"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Error == nil || resp.Error.Code != jsonrpc.CodeResourceNotFound {
			t.Errorf("session read of a skill outside the allow-list: %s %+v", resp.Result, resp.Error)
		}
	})
}

func TestSkillsUndeclaredWithoutSkills(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet)
	r.Resource("app://x", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("x")
	}, specter.Description("A resource"))
	e := newEnv(t, r)
	c := e.stateless()
	var d mcp.DiscoverResult
	if complete(t, call(t, c, "server/discover", nil), &d); d.Capabilities.Extensions[mcp.ExtensionSkills] != nil {
		t.Errorf("a server without skills declares the extension: %s", d.Capabilities.Extensions[mcp.ExtensionSkills])
	}
	for _, method := range []string{"skills/list", "skills/get", "resources/directory/read"} {
		r := c.Request(method, map[string]any{"uri": "skill://x/SKILL.md"})
		wantError(t, send(t, c, r), r.ID, http.StatusNotFound, jsonrpc.CodeMethodNotFound)
	}
}
