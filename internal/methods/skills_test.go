package methods

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/specter-mcp/specter/internal/skills"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

func (s *fakeServer) Skills() ([]*mcp.Skill, error) { return s.skills, s.skillsErr }

func (s *fakeServer) SkillAt(uri string) (*skills.Skill, error) {
	if s.skillsErr != nil {
		return nil, s.skillsErr
	}
	return s.skillSet[skills.EntryURI(uri)], nil
}

// skillServer serves n skills, each with two files, and a skill "d"
// whose root directory has n children.
func skillServer(n, pageSize int) *fakeServer {
	d := &skills.Skill{Entry: mcp.Skill{URI: "skill://d/SKILL.md"}, Dirs: map[string][]*mcp.Resource{"skill://d": {}}}
	s := &fakeServer{pageSize: pageSize, skillSet: map[string]*skills.Skill{d.Entry.URI: d}}
	for i := range n {
		uri := fmt.Sprintf("skill://s%d/SKILL.md", i)
		entry := &mcp.Skill{URI: uri, Frontmatter: json.RawMessage(fmt.Sprintf(`{"name":"s%d"}`, i)),
			Resources: []mcp.SkillResource{{URI: uri, Digest: "sha256:1", Size: 1}, {URI: fmt.Sprintf("skill://s%d/a.md", i), Digest: "sha256:2", Size: 2}}}
		s.skills = append(s.skills, entry)
		s.skillSet[uri] = &skills.Skill{Entry: *entry, Dirs: map[string][]*mcp.Resource{fmt.Sprintf("skill://s%d", i): {}}}
		d.Dirs["skill://d"] = append(d.Dirs["skill://d"], &mcp.Resource{URI: fmt.Sprintf("skill://d/f%d", i), Name: fmt.Sprintf("f%d", i)})
	}
	return s
}

func TestSkillMethodsAreStatelessOnly(t *testing.T) {
	for _, m := range []string{mcp.MethodSkillsList, mcp.MethodSkillsGet, mcp.MethodResourcesDirectoryRead} {
		if _, ok := LookupStateless(m); !ok {
			t.Errorf("LookupStateless(%q) failed", m)
		}
		if _, ok := Lookup(m); ok {
			t.Errorf("Lookup(%q) found a 2026-07-28 extension method in the session era", m)
		}
	}
}

// statelessCall runs method through the LookupStateless table.
func statelessCall(t *testing.T, s Server, method, params string) Outcome {
	t.Helper()
	f, ok := LookupStateless(method)
	if !ok {
		t.Fatalf("LookupStateless(%q) failed", method)
	}
	var p json.RawMessage
	if params != "" {
		p = json.RawMessage(params)
	}
	return f(s, p)
}

// walkStateless pages through a 2026-07-28 list method and returns the uris
// of each page. params are the request's other params, as JSON members.
func walkStateless(t *testing.T, s Server, method, params string) [][]string {
	t.Helper()
	var pages [][]string
	cursor := ""
	for range 100 {
		p := "{" + params
		if cursor != "" {
			if params != "" {
				p += ","
			}
			p += `"cursor":"` + cursor + `"`
		}
		raw := resultJSON(t, statelessCall(t, s, method, p+"}"))
		var res struct {
			Skills     []struct{ URI string } `json:"skills"`
			Resources  []struct{ URI string } `json:"resources"`
			NextCursor *string                `json:"nextCursor"`
		}
		if err := json.Unmarshal([]byte(raw), &res); err != nil {
			t.Fatal(err)
		}
		page := []string{}
		for _, it := range append(res.Skills, res.Resources...) {
			page = append(page, it.URI)
		}
		pages = append(pages, page)
		if res.NextCursor == nil {
			return pages
		}
		cursor = *res.NextCursor
	}
	t.Fatal("pagination did not end")
	return nil
}

func TestListSkillsPages(t *testing.T) {
	tests := []struct {
		n, size int
		want    [][]string
	}{
		{3, 2, [][]string{{"skill://s0/SKILL.md", "skill://s1/SKILL.md"}, {"skill://s2/SKILL.md"}}},
		{2, 0, [][]string{{"skill://s0/SKILL.md", "skill://s1/SKILL.md"}}},
		{0, 2, [][]string{{}}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("n=%d size=%d", tt.n, tt.size), func(t *testing.T) {
			if got := walkStateless(t, skillServer(tt.n, tt.size), mcp.MethodSkillsList, ""); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("pages %v, want %v", got, tt.want)
			}
		})
	}
	// An entry travels whole, with every file.
	got := resultJSON(t, statelessCall(t, skillServer(1, 1), mcp.MethodSkillsList, `{}`))
	want := `{"skills":[{"uri":"skill://s0/SKILL.md","frontmatter":{"name":"s0"},"resources":[{"uri":"skill://s0/SKILL.md","digest":"sha256:1","size":1},{"uri":"skill://s0/a.md","digest":"sha256:2","size":2}]}]}`
	if got != want {
		t.Errorf("result %s, want %s", got, want)
	}
}

func TestGetSkill(t *testing.T) {
	s := skillServer(2, 1)
	got := resultJSON(t, statelessCall(t, s, mcp.MethodSkillsGet, `{"uri":"skill://s1/SKILL.md"}`))
	want := `{"skill":{"uri":"skill://s1/SKILL.md","frontmatter":{"name":"s1"},"resources":[{"uri":"skill://s1/SKILL.md","digest":"sha256:1","size":1},{"uri":"skill://s1/a.md","digest":"sha256:2","size":2}]}}`
	if got != want {
		t.Errorf("result %s, want %s", got, want)
	}
	for _, uri := range []string{"skill://nope/SKILL.md", "skill://s1/a.md", "skill://s1", "https://x/SKILL.md"} {
		r := statelessCall(t, s, mcp.MethodSkillsGet, `{"uri":"`+uri+`"}`)
		wantInvalidParams(t, r, "Unknown skill: "+uri)
		if data := r.Err.(*jsonrpc.Error).Data; !reflect.DeepEqual(data, map[string]string{"uri": uri}) {
			t.Errorf("%s: data %v", uri, data)
		}
	}
}

func TestReadDirectoryPages(t *testing.T) {
	got := walkStateless(t, skillServer(3, 2), mcp.MethodResourcesDirectoryRead, `"uri":"skill://d"`)
	want := [][]string{{"skill://d/f0", "skill://d/f1"}, {"skill://d/f2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pages %v, want %v", got, want)
	}
	if got := resultJSON(t, statelessCall(t, skillServer(0, 2), mcp.MethodResourcesDirectoryRead, `{"uri":"skill://d"}`)); got != `{"resources":[]}` {
		t.Errorf("empty directory: %s", got)
	}
	for _, uri := range []string{"skill://s0/SKILL.md", "skill://nope", "skill://d/f0"} {
		wantInvalidParams(t, statelessCall(t, skillServer(1, 1), mcp.MethodResourcesDirectoryRead, `{"uri":"`+uri+`"}`), "Not a directory: "+uri)
	}
	wantInvalidParams(t, statelessCall(t, skillServer(3, 2), mcp.MethodResourcesDirectoryRead, `{"uri":"skill://d","cursor":"!"}`), "cursor")
}

func TestSkillMethodsInvalidParams(t *testing.T) {
	tests := []struct{ method, params, want string }{
		{mcp.MethodSkillsGet, ``, `"uri" is required`},
		{mcp.MethodSkillsGet, `{"uri":""}`, `"uri" is required`},
		{mcp.MethodSkillsGet, `{"uri":1}`, `"uri" must not be number`},
		{mcp.MethodResourcesDirectoryRead, `{}`, `"uri" is required`},
		{mcp.MethodResourcesDirectoryRead, `{"uri":"skill://d","cursor":3}`, `"cursor" must not be number`},
		{mcp.MethodSkillsList, `{"cursor":[]}`, `"cursor" must not be array`},
		{mcp.MethodSkillsList, `{"cursor":"` + cursorOf(`{"o":9}`) + `"}`, `out of range`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.params, func(t *testing.T) {
			wantInvalidParams(t, statelessCall(t, skillServer(1, 1), tt.method, tt.params), tt.want)
		})
	}
}

func TestSkillMethodsPassServerErrors(t *testing.T) {
	for method, params := range map[string]string{
		mcp.MethodSkillsList:             `{}`,
		mcp.MethodSkillsGet:              `{"uri":"skill://s0/SKILL.md"}`,
		mcp.MethodResourcesDirectoryRead: `{"uri":"skill://d"}`,
	} {
		s := skillServer(1, 1)
		s.skillsErr = jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "no skills")
		if r := statelessCall(t, s, method, params); r.Err != s.skillsErr || r.Result != nil {
			t.Errorf("%s: reply %+v, want the server's error", method, r)
		}
	}
}
