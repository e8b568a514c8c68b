package methods

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/internal/skills"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// fakeServer implements Server with plain slices and records what the
// methods asked of it.
type fakeServer struct {
	pageSize  int
	tools     []*mcp.Tool
	prompts   []*mcp.Prompt
	resources []*mcp.Resource
	sources   []ResourceSource
	templates []*mcp.ResourceTemplate

	level    mcp.LoggingLevel
	levelSet bool

	calledTool string
	toolArgs   json.RawMessage
	prompt     string
	promptArgs map[string]string
	readURI    string
	subURI     string
	subOn      *bool
	subErr     error

	completeParams *mcp.CompleteParams
	completion     *mcp.Completion
	completeErr    error

	skills    []*mcp.Skill
	skillSet  map[string]*skills.Skill // by the URI of its SKILL.md
	skillsErr error                    // the server declares no skills

	taskCall string
	tasks    []*mcp.SessionTask
}

var _ Server = (*fakeServer)(nil)

func (s *fakeServer) PageSize() int        { return s.pageSize }
func (s *fakeServer) EnvelopeName() string { return "" }
func (s *fakeServer) SetLogLevel(l mcp.LoggingLevel) {
	s.level, s.levelSet = l, true
}
func (s *fakeServer) Tools() []*mcp.Tool { return s.tools }
func (s *fakeServer) CallTool(name string, args json.RawMessage) Outcome {
	s.calledTool, s.toolArgs = name, args
	return Answer(map[string]string{"called": name})
}
func (s *fakeServer) Prompts() []*mcp.Prompt { return s.prompts }
func (s *fakeServer) GetPrompt(name string, args map[string]string) Outcome {
	s.prompt, s.promptArgs = name, args
	return Answer(map[string]string{"prompt": name})
}
func (s *fakeServer) Resources() []*mcp.Resource         { return s.resources }
func (s *fakeServer) ResourceSources() []ResourceSource  { return s.sources }
func (s *fakeServer) Templates() []*mcp.ResourceTemplate { return s.templates }
func (s *fakeServer) ReadResource(uri string) Outcome {
	s.readURI = uri
	return Answer(map[string]string{"read": uri})
}
func (s *fakeServer) Complete(p *mcp.CompleteParams) (*mcp.Completion, error) {
	s.completeParams = p
	if s.completeErr != nil {
		return nil, s.completeErr
	}
	if s.completion == nil {
		return &mcp.Completion{}, nil
	}
	c := *s.completion
	return &c, nil
}
func (s *fakeServer) Discover() *mcp.DiscoverResult {
	return &mcp.DiscoverResult{SupportedVersions: []string{mcp.LatestSessionVersion}}
}
func (s *fakeServer) Task(method, id string) Outcome {
	s.taskCall = method + " " + id
	return Answer(mcp.EmptyResult{})
}
func (s *fakeServer) Tasks() ([]*mcp.SessionTask, error) { return s.tasks, nil }
func (s *fakeServer) Subscribe(uri string, on bool) error {
	s.subURI, s.subOn = uri, &on
	return s.subErr
}

func newServer(n, pageSize int) *fakeServer {
	s := &fakeServer{pageSize: pageSize}
	for i := range n {
		s.tools = append(s.tools, &mcp.Tool{Name: fmt.Sprintf("tool%d", i), InputSchema: json.RawMessage(`{"type":"object"}`)})
		s.prompts = append(s.prompts, &mcp.Prompt{Name: fmt.Sprintf("prompt%d", i)})
		s.templates = append(s.templates, &mcp.ResourceTemplate{Name: fmt.Sprintf("tpl%d", i), URITemplate: fmt.Sprintf("x://%d/{id}", i)})
		s.resources = append(s.resources, &mcp.Resource{Name: fmt.Sprintf("res%d", i), URI: fmt.Sprintf("x://res/%d", i)})
	}
	return s
}

// call runs method through the Lookup table.
func call(t *testing.T, s Server, method, params string) Outcome {
	t.Helper()
	f, ok := Lookup(method)
	if !ok {
		t.Fatalf("Lookup(%q) failed", method)
	}
	var p json.RawMessage
	if params != "" {
		p = json.RawMessage(params)
	}
	return f(s, p)
}

// resultJSON marshals a successful reply's result.
func resultJSON(t *testing.T, r Outcome) string {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("reply error: %v", r.Err)
	}
	if r.Pending {
		t.Fatal("reply is pending")
	}
	b, err := json.Marshal(r.Result)
	if err != nil {
		t.Fatalf("marshal result: %v", err)
	}
	return string(b)
}

// wantInvalidParams fails unless r carries a *jsonrpc.Error -32602 whose
// message contains every one of subs.
func wantInvalidParams(t *testing.T, r Outcome, subs ...string) {
	t.Helper()
	if r.Result != nil {
		t.Errorf("reply has a result: %#v", r.Result)
	}
	var e *jsonrpc.Error
	if !errors.As(r.Err, &e) {
		t.Fatalf("reply error %v (%T), want *jsonrpc.Error", r.Err, r.Err)
	}
	if e.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("code %d (%s), want %d", e.Code, e.Message, jsonrpc.CodeInvalidParams)
	}
	for _, s := range subs {
		if !strings.Contains(e.Message, s) {
			t.Errorf("message %q does not contain %q", e.Message, s)
		}
	}
}

func cursorOf(position string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(position))
}

func TestLookup(t *testing.T) {
	methods := []string{
		mcp.MethodPing, mcp.MethodSetLevel, mcp.MethodToolsList, mcp.MethodToolsCall,
		mcp.MethodPromptsList, mcp.MethodPromptsGet, mcp.MethodResourcesList,
		mcp.MethodResourceTemplatesList, mcp.MethodResourcesRead,
		mcp.MethodResourcesSubscribe, mcp.MethodResourcesUnsubscribe, mcp.MethodComplete,
		mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel, mcp.MethodTasksList,
	}
	for _, m := range methods {
		if f, ok := Lookup(m); !ok || f == nil {
			t.Errorf("Lookup(%q) = %v, %v", m, f != nil, ok)
		}
	}
	if len(session) != len(methods) {
		t.Errorf("table has %d methods, want %d", len(session), len(methods))
	}
	for _, m := range []string{
		"", mcp.MethodInitialize, "unknown", "tools/List", "tools/list ",
		mcp.NotificationInitialized, mcp.NotificationCancelled, mcp.MethodElicit, mcp.MethodSample, mcp.MethodListRoots,
	} {
		if f, ok := Lookup(m); ok || f != nil {
			t.Errorf("Lookup(%q) found a method", m)
		}
	}
}

func TestMethods(t *testing.T) {
	tests := []struct {
		method string
		params string
		want   string
		check  func(t *testing.T, s *fakeServer)
	}{
		{mcp.MethodPing, ``, `{}`, nil},
		{mcp.MethodPing, `{}`, `{}`, nil},
		{mcp.MethodSetLevel, `{"level":"error"}`, `{}`, func(t *testing.T, s *fakeServer) {
			if s.level != mcp.LevelError {
				t.Errorf("level %q", s.level)
			}
		}},
		{mcp.MethodToolsList, ``, `{"tools":[{"name":"tool0","inputSchema":{"type":"object"}},{"name":"tool1","inputSchema":{"type":"object"}}]}`, nil},
		{mcp.MethodToolsCall, `{"name":"tool1","arguments":{"a":1}}`, `{"called":"tool1"}`, func(t *testing.T, s *fakeServer) {
			if s.calledTool != "tool1" || string(s.toolArgs) != `{"a":1}` {
				t.Errorf("CallTool(%q, %s)", s.calledTool, s.toolArgs)
			}
		}},
		{mcp.MethodToolsCall, `{"name":"tool0"}`, `{"called":"tool0"}`, func(t *testing.T, s *fakeServer) {
			if s.toolArgs != nil {
				t.Errorf("args %s, want nil", s.toolArgs)
			}
		}},
		{mcp.MethodPromptsList, `{}`, `{"prompts":[{"name":"prompt0"},{"name":"prompt1"}]}`, nil},
		{mcp.MethodPromptsGet, `{"name":"prompt0","arguments":{"k":"v"}}`, `{"prompt":"prompt0"}`, func(t *testing.T, s *fakeServer) {
			if s.prompt != "prompt0" || !reflect.DeepEqual(s.promptArgs, map[string]string{"k": "v"}) {
				t.Errorf("GetPrompt(%q, %v)", s.prompt, s.promptArgs)
			}
		}},
		{mcp.MethodResourcesList, `null`, `{"resources":[{"uri":"x://res/0","name":"res0"},{"uri":"x://res/1","name":"res1"}]}`, nil},
		{mcp.MethodResourceTemplatesList, ``, `{"resourceTemplates":[{"uriTemplate":"x://0/{id}","name":"tpl0"},{"uriTemplate":"x://1/{id}","name":"tpl1"}]}`, nil},
		{mcp.MethodResourcesRead, `{"uri":"x://res/1"}`, `{"read":"x://res/1"}`, func(t *testing.T, s *fakeServer) {
			if s.readURI != "x://res/1" {
				t.Errorf("ReadResource(%q)", s.readURI)
			}
		}},
		{mcp.MethodResourcesSubscribe, `{"uri":"x://res/0"}`, `{}`, func(t *testing.T, s *fakeServer) {
			if s.subURI != "x://res/0" || s.subOn == nil || !*s.subOn {
				t.Errorf("Subscribe(%q, %v)", s.subURI, s.subOn)
			}
		}},
		{mcp.MethodResourcesUnsubscribe, `{"uri":"x://res/1"}`, `{}`, func(t *testing.T, s *fakeServer) {
			if s.subURI != "x://res/1" || s.subOn == nil || *s.subOn {
				t.Errorf("Subscribe(%q, %v)", s.subURI, s.subOn)
			}
		}},
		{mcp.MethodComplete, `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"},"context":{"arguments":{"b":"y"}}}`, `{"completion":{"values":[]}}`, func(t *testing.T, s *fakeServer) {
			p := s.completeParams
			if p == nil || p.Ref.Name != "p" || p.Argument.Name != "a" || p.Argument.Value != "x" || p.Context == nil || p.Context.Arguments["b"] != "y" {
				t.Errorf("Complete(%+v)", p)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.params, func(t *testing.T) {
			s := newServer(2, 0)
			got := resultJSON(t, call(t, s, tt.method, tt.params))
			if got != tt.want {
				t.Errorf("result %s, want %s", got, tt.want)
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}

func TestPingResultIsEmptyObject(t *testing.T) {
	// ping ignores its params and never touches the server.
	for _, params := range []string{``, `null`, `{}`, `{"_meta":{"x":1}}`, `"x"`} {
		if got := resultJSON(t, call(t, nil, mcp.MethodPing, params)); got != `{}` {
			t.Errorf("ping(%s) result %s, want {}", params, got)
		}
	}
}

func TestRequiredParams(t *testing.T) {
	tests := []struct {
		method, params, field string
	}{
		{mcp.MethodToolsCall, ``, `"name"`},
		{mcp.MethodToolsCall, `{}`, `"name"`},
		{mcp.MethodToolsCall, `{"name":""}`, `"name"`},
		{mcp.MethodPromptsGet, `null`, `"name"`},
		{mcp.MethodResourcesRead, `{}`, `"uri"`},
		{mcp.MethodResourcesSubscribe, `{}`, `"uri"`},
		{mcp.MethodResourcesUnsubscribe, `{"uri":""}`, `"uri"`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.params, func(t *testing.T) {
			s := newServer(1, 0)
			wantInvalidParams(t, call(t, s, tt.method, tt.params), tt.field, "required")
			if s.calledTool != "" || s.prompt != "" || s.readURI != "" || s.subOn != nil {
				t.Error("the server was called despite invalid params")
			}
		})
	}
}

func TestWrongParamTypesNameTheField(t *testing.T) {
	tests := []struct {
		method, params, want string
	}{
		{mcp.MethodToolsCall, `{"name":5}`, `"name" must not be number`},
		{mcp.MethodPromptsGet, `{"name":["x"]}`, `"name" must not be array`},
		{mcp.MethodPromptsGet, `{"name":"p","arguments":"x"}`, `"arguments" must not be string`},
		{mcp.MethodResourcesRead, `{"uri":true}`, `"uri" must not be bool`},
		{mcp.MethodResourcesSubscribe, `{"uri":{}}`, `"uri" must not be object`},
		{mcp.MethodSetLevel, `{"level":1}`, `"level" must not be number`},
		{mcp.MethodToolsList, `{"cursor":2}`, `"cursor" must not be number`},
		{mcp.MethodPromptsList, `{"cursor":false}`, `"cursor" must not be bool`},
		{mcp.MethodResourcesList, `{"cursor":[]}`, `"cursor" must not be array`},
		{mcp.MethodResourceTemplatesList, `{"cursor":{}}`, `"cursor" must not be object`},
		{mcp.MethodComplete, `{"ref":{"type":3}}`, `"ref.type" must not be number`},
		{mcp.MethodComplete, `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":1}}`, `"argument.value" must not be number`},
		{mcp.MethodToolsCall, `[1]`, `malformed params object`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.params, func(t *testing.T) {
			r := call(t, newServer(1, 0), tt.method, tt.params)
			wantInvalidParams(t, r, "Invalid params", tt.want)
		})
	}
}

// walk lists method page by page from the start and returns the item
// names of each page.
func walk(t *testing.T, s Server, method string) [][]string {
	t.Helper()
	var pages [][]string
	cursor := ""
	for range 100 {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		var res struct {
			Tools             []struct{ Name string } `json:"tools"`
			Prompts           []struct{ Name string } `json:"prompts"`
			ResourceTemplates []struct{ Name string } `json:"resourceTemplates"`
			Resources         []struct{ Name string } `json:"resources"`
			NextCursor        *string                 `json:"nextCursor"`
		}
		raw := resultJSON(t, call(t, s, method, params))
		if err := json.Unmarshal([]byte(raw), &res); err != nil {
			t.Fatal(err)
		}
		page := []string{}
		for _, l := range [][]struct{ Name string }{res.Tools, res.Prompts, res.ResourceTemplates, res.Resources} {
			for _, it := range l {
				page = append(page, it.Name)
			}
		}
		pages = append(pages, page)
		if res.NextCursor == nil {
			return pages
		}
		if *res.NextCursor == "" {
			t.Fatalf("nextCursor is present but empty: %s", raw)
		}
		cursor = *res.NextCursor
	}
	t.Fatal("pagination did not end")
	return nil
}

func TestPagination(t *testing.T) {
	names := func(prefix string, idx ...int) []string {
		out := []string{}
		for _, i := range idx {
			out = append(out, fmt.Sprintf("%s%d", prefix, i))
		}
		return out
	}
	lists := []struct {
		method, prefix string
	}{
		{mcp.MethodToolsList, "tool"},
		{mcp.MethodPromptsList, "prompt"},
		{mcp.MethodResourceTemplatesList, "tpl"},
	}
	tests := []struct {
		n, size int
		pages   [][]int
	}{
		{7, 1, [][]int{{0}, {1}, {2}, {3}, {4}, {5}, {6}}},
		{7, 3, [][]int{{0, 1, 2}, {3, 4, 5}, {6}}},
		{6, 3, [][]int{{0, 1, 2}, {3, 4, 5}}},
		{7, 0, [][]int{{0, 1, 2, 3, 4, 5, 6}}},
		{7, -1, [][]int{{0, 1, 2, 3, 4, 5, 6}}},
		{2, 5, [][]int{{0, 1}}},
		{0, 3, [][]int{{}}},
		{0, 0, [][]int{{}}},
	}
	for _, l := range lists {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s n=%d size=%d", l.method, tt.n, tt.size), func(t *testing.T) {
				got := walk(t, newServer(tt.n, tt.size), l.method)
				var want [][]string
				for _, p := range tt.pages {
					want = append(want, names(l.prefix, p...))
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("pages %v, want %v", got, want)
				}
			})
		}
	}
}

func TestEmptyListsAreArrays(t *testing.T) {
	s := newServer(0, 2)
	for method, want := range map[string]string{
		mcp.MethodToolsList:             `{"tools":[]}`,
		mcp.MethodPromptsList:           `{"prompts":[]}`,
		mcp.MethodResourceTemplatesList: `{"resourceTemplates":[]}`,
		mcp.MethodResourcesList:         `{"resources":[]}`,
	} {
		if got := resultJSON(t, call(t, s, method, ``)); got != want {
			t.Errorf("%s = %s, want %s", method, got, want)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	for _, p := range []position{{}, {Offset: 3}, {Source: 2}, {Source: 1, Inner: "abc/+=?"}, {Offset: 1 << 40}} {
		c := encodeCursor(p)
		if strings.ContainsAny(c, "+/=") {
			t.Errorf("cursor %q is not base64url without padding", c)
		}
		got, err := decodeCursor(c)
		if err != nil || got != p {
			t.Errorf("decodeCursor(encodeCursor(%+v)) = %+v, %v", p, got, err)
		}
	}
	if got, err := decodeCursor(""); err != nil || got != (position{}) {
		t.Errorf(`decodeCursor("") = %+v, %v`, got, err)
	}
}

func TestCursorAtEndIsEmptyPage(t *testing.T) {
	s := newServer(3, 2)
	got := resultJSON(t, call(t, s, mcp.MethodToolsList, `{"cursor":"`+cursorOf(`{"o":3}`)+`"}`))
	if want := `{"tools":[]}`; got != want {
		t.Errorf("result %s, want %s", got, want)
	}
	got = resultJSON(t, call(t, s, mcp.MethodToolsList, `{"cursor":"`+cursorOf(`{"o":1}`)+`"}`))
	var res mcp.ListToolsResult
	if err := json.Unmarshal([]byte(got), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 2 || res.Tools[0].Name != "tool1" || res.NextCursor != "" {
		t.Errorf("from offset 1: %s", got)
	}
}

func TestInvalidCursors(t *testing.T) {
	cursors := []struct {
		name, cursor string
	}{
		{"not base64", "!!!not base64!!!"},
		{"standard base64 padding", base64.StdEncoding.EncodeToString([]byte(`{"o":1}`))},
		{"base64 of non-JSON", cursorOf("hello")},
		{"base64 of a string", cursorOf(`"x"`)},
		{"base64 of truncated JSON", cursorOf(`{"o":`)},
		{"negative offset", cursorOf(`{"o":-1}`)},
		{"negative source", cursorOf(`{"s":-1}`)},
		{"offset wrong type", cursorOf(`{"o":"1"}`)},
		{"offset past the end", cursorOf(`{"o":4}`)},
		{"far past the end", cursorOf(`{"o":1000000}`)},
		{"source past the end", cursorOf(`{"s":9}`)},
	}
	for _, method := range []string{mcp.MethodToolsList, mcp.MethodPromptsList, mcp.MethodResourceTemplatesList, mcp.MethodResourcesList} {
		for _, c := range cursors {
			t.Run(method+" "+c.name, func(t *testing.T) {
				s := newServer(3, 2)
				r := call(t, s, method, `{"cursor":"`+c.cursor+`"}`)
				wantInvalidParams(t, r, "Invalid params", "cursor")
			})
		}
	}
	// A cursor of resources/list (a source position) is foreign to the
	// other lists.
	for _, method := range []string{mcp.MethodToolsList, mcp.MethodPromptsList, mcp.MethodResourceTemplatesList} {
		for _, pos := range []string{`{"s":1}`, `{"c":"inner"}`} {
			r := call(t, newServer(3, 2), method, `{"cursor":"`+cursorOf(pos)+`"}`)
			wantInvalidParams(t, r, "cursor")
		}
	}
}

// pagedSource is a ResourceSource serving pages of names, as a List
// handler does: paged when it names a next page or is asked for one. Its
// cursor is "page<n>". It records the cursors it was asked for.
func pagedSource(prefix string, pages [][]string, asked *[]string) ResourceSource {
	return func(cursor string) ([]mcp.Resource, string, bool, error) {
		*asked = append(*asked, cursor)
		i := 0
		if cursor != "" {
			if _, err := fmt.Sscanf(cursor, "page%d", &i); err != nil || i >= len(pages) {
				return nil, "", true, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "bad inner cursor %q", cursor)
			}
		}
		var out []mcp.Resource
		for _, n := range pages[i] {
			out = append(out, mcp.Resource{URI: prefix + "://" + n, Name: n})
		}
		next := ""
		if i+1 < len(pages) {
			next = fmt.Sprintf("page%d", i+1)
		}
		return out, next, next != "" || cursor != "", nil
	}
}

// wholeSource is a ResourceSource that lists all of names at once, as a
// List handler that never calls PutNextCursor does. It counts its calls.
func wholeSource(prefix string, names []string, calls *int) ResourceSource {
	return func(cursor string) ([]mcp.Resource, string, bool, error) {
		*calls++
		var out []mcp.Resource
		for _, n := range names {
			out = append(out, mcp.Resource{URI: prefix + "://" + n, Name: n})
		}
		return out, "", false, nil
	}
}

func TestListResourcesWithSources(t *testing.T) {
	tests := []struct {
		name         string
		static       int
		pageSize     int
		want         [][]string
		askedA       []string // the cursors source a was asked for
		askedB       []string
		emptySources bool // source a starts with two empty pages
	}{
		// Each page of a source that pages by itself is sent whole and
		// ends a page of the list: its size and cursors are the source's.
		// A page that does not fit after the static resources starts a
		// list page of its own.
		{"page size 2", 3, 2, [][]string{{"res0", "res1"}, {"res2"}, {"a1", "a2"}, {"a3"}, {"b1"}}, []string{"", "", "page1"}, []string{""}, false},
		{"page size 3", 3, 3, [][]string{{"res0", "res1", "res2"}, {"a1", "a2"}, {"a3"}, {"b1"}}, []string{"", "page1"}, []string{""}, false},
		{"page size 0", 3, 0, [][]string{{"res0", "res1", "res2", "a1", "a2"}, {"a3"}, {"b1"}}, []string{"", "page1"}, []string{""}, false},
		{"page size 1", 1, 1, [][]string{{"res0"}, {"a1", "a2"}, {"a3"}, {"b1"}}, []string{"", "page1"}, []string{""}, false},
		// Issue 8 item 4: templates with List handlers and no fixed
		// resources filled the first page with nothing.
		{"no static", 0, 2, [][]string{{"a1", "a2"}, {"a3"}, {"b1"}}, []string{"", "page1"}, []string{""}, false},
		{"no static, big page", 0, 50, [][]string{{"a1", "a2"}, {"a3"}, {"b1"}}, []string{"", "page1"}, []string{""}, false},
		{"empty source pages", 0, 2, [][]string{{"a1", "a2"}, {"a3"}, {"b1"}}, []string{"", "page1", "page2", "page3"}, []string{""}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(tt.static, tt.pageSize)
			var askedA, askedB []string
			pagesA := [][]string{{"a1", "a2"}, {"a3"}}
			if tt.emptySources {
				pagesA = [][]string{{}, {}, {"a1", "a2"}, {"a3"}}
			}
			s.sources = []ResourceSource{
				pagedSource("a", pagesA, &askedA),
				pagedSource("b", [][]string{{"b1"}}, &askedB),
			}
			got := walk(t, s, mcp.MethodResourcesList)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("pages %v, want %v", got, tt.want)
			}
			if !slices.Equal(askedA, tt.askedA) {
				t.Errorf("source a asked for %q, want %q", askedA, tt.askedA)
			}
			if !slices.Equal(askedB, tt.askedB) {
				t.Errorf("source b asked for %q, want %q", askedB, tt.askedB)
			}
		})
	}
}

// Sources that list everything at once are paged by the page size,
// together with the static resources.
func TestListResourcesWholeSources(t *testing.T) {
	s := newServer(3, 2)
	var callsA, callsB int
	s.sources = []ResourceSource{
		wholeSource("a", []string{"a1", "a2", "a3"}, &callsA),
		wholeSource("b", []string{"b1"}, &callsB),
	}
	got := walk(t, s, mcp.MethodResourcesList)
	if want := [][]string{{"res0", "res1"}, {"res2", "a1"}, {"a2", "a3"}, {"b1"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("pages %v, want %v", got, want)
	}
	if callsA != 2 || callsB != 1 {
		t.Errorf("sources called %d and %d times, want 2 and 1", callsA, callsB)
	}
}

func TestListResourcesEmptySourcePage(t *testing.T) {
	s := newServer(1, 5)
	var asked []string
	s.sources = []ResourceSource{pagedSource("e", [][]string{{}}, &asked)}
	got := walk(t, s, mcp.MethodResourcesList)
	if want := [][]string{{"res0"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("pages %v, want %v", got, want)
	}
}

func TestListResourcesEndlessEmptySource(t *testing.T) {
	// A source that only ever answers empty pages ends each list page
	// after maxSourcePages calls, with a cursor to go on.
	s := newServer(0, 5)
	calls := 0
	s.sources = []ResourceSource{func(cursor string) ([]mcp.Resource, string, bool, error) {
		calls++
		return nil, "more", true, nil
	}}
	raw := resultJSON(t, call(t, s, mcp.MethodResourcesList, ``))
	var res mcp.ListResourcesResult
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 0 || res.NextCursor == "" || calls != maxSourcePages {
		t.Errorf("page %s after %d calls; want an empty page with a cursor after %d", raw, calls, maxSourcePages)
	}
}

func TestListResourcesMidPageCursor(t *testing.T) {
	// A cursor that resumes inside a source's page past its end is out
	// of range, like any other stale cursor.
	s := newServer(0, 2)
	var asked []string
	s.sources = []ResourceSource{pagedSource("a", [][]string{{"a1", "a2"}}, &asked)}
	r := call(t, s, mcp.MethodResourcesList, `{"cursor":"`+cursorOf(`{"s":1,"o":3}`)+`"}`)
	wantInvalidParams(t, r, "Invalid params", "out of range")
	got := resultJSON(t, call(t, s, mcp.MethodResourcesList, `{"cursor":"`+cursorOf(`{"s":1,"o":1}`)+`"}`))
	if want := `{"resources":[{"uri":"a://a2","name":"a2"}]}`; got != want {
		t.Errorf("from offset 1: %s, want %s", got, want)
	}
}

func TestListResourcesSourceError(t *testing.T) {
	boom := errors.New("backend down")
	var askedA []string
	s := newServer(1, 1)
	s.sources = []ResourceSource{
		pagedSource("a", [][]string{{"a1"}}, &askedA),
		func(string) ([]mcp.Resource, string, bool, error) { return nil, "", false, boom },
	}
	// First page: static; second: source a; third: the failing source.
	first := resultJSON(t, call(t, s, mcp.MethodResourcesList, ``))
	var res mcp.ListResourcesResult
	if err := json.Unmarshal([]byte(first), &res); err != nil || res.NextCursor == "" {
		t.Fatalf("first page %s", first)
	}
	second := resultJSON(t, call(t, s, mcp.MethodResourcesList, `{"cursor":"`+res.NextCursor+`"}`))
	res = mcp.ListResourcesResult{}
	if err := json.Unmarshal([]byte(second), &res); err != nil || res.NextCursor == "" || len(res.Resources) != 1 {
		t.Fatalf("second page %s", second)
	}
	r := call(t, s, mcp.MethodResourcesList, `{"cursor":"`+res.NextCursor+`"}`)
	if !errors.Is(r.Err, boom) {
		t.Errorf("error %v, want %v", r.Err, boom)
	}
	if r.Result != nil {
		t.Errorf("result %v with an error", r.Result)
	}
	// With room for everything, the error fails the first page.
	s.pageSize = 0
	if r := call(t, s, mcp.MethodResourcesList, ``); !errors.Is(r.Err, boom) || r.Result != nil {
		t.Errorf("unpaged: reply %+v, want %v", r, boom)
	}

	// An error from the source's own cursor check comes back as is.
	bad := call(t, s, mcp.MethodResourcesList, `{"cursor":"`+cursorOf(`{"s":1,"c":"page7"}`)+`"}`)
	wantInvalidParams(t, bad, "bad inner cursor")
}

func TestCompleteValidation(t *testing.T) {
	tests := []struct {
		name, params, want string
	}{
		{"no params", ``, `"ref.type"`},
		{"bad ref type", `{"ref":{"type":"ref/tool","name":"x"},"argument":{"name":"a"}}`, `"ref.type" must be`},
		{"empty ref type", `{"ref":{"name":"x"},"argument":{"name":"a"}}`, `"ref.type" must be`},
		{"prompt without name", `{"ref":{"type":"ref/prompt"},"argument":{"name":"a"}}`, `"ref.name" is required`},
		{"prompt with uri only", `{"ref":{"type":"ref/prompt","uri":"x://y"},"argument":{"name":"a"}}`, `"ref.name" is required`},
		{"resource without uri", `{"ref":{"type":"ref/resource"},"argument":{"name":"a"}}`, `"ref.uri" is required`},
		{"resource with name only", `{"ref":{"type":"ref/resource","name":"x"},"argument":{"name":"a"}}`, `"ref.uri" is required`},
		{"missing argument name", `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"value":"v"}}`, `"argument.name" is required`},
		{"missing argument", `{"ref":{"type":"ref/resource","uri":"x://{a}"}}`, `"argument.name" is required`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(0, 0)
			wantInvalidParams(t, call(t, s, mcp.MethodComplete, tt.params), "Invalid params", tt.want)
			if s.completeParams != nil {
				t.Error("Complete was called despite invalid params")
			}
		})
	}
}

func TestCompleteResults(t *testing.T) {
	values := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint("v", i)
		}
		return out
	}
	intp := func(n int) *int { return &n }
	tests := []struct {
		name      string
		in        mcp.Completion
		wantLen   int
		wantTotal *int
		wantMore  bool
	}{
		{"nil values", mcp.Completion{}, 0, nil, false},
		{"few", mcp.Completion{Values: values(3)}, 3, nil, false},
		{"few with total", mcp.Completion{Values: values(3), Total: intp(50), HasMore: true}, 3, intp(50), true},
		{"exactly max", mcp.Completion{Values: values(MaxCompletionValues)}, MaxCompletionValues, nil, false},
		{"one over", mcp.Completion{Values: values(MaxCompletionValues + 1)}, MaxCompletionValues, intp(MaxCompletionValues + 1), true},
		{"many", mcp.Completion{Values: values(250)}, MaxCompletionValues, intp(250), true},
		{"many with total", mcp.Completion{Values: values(250), Total: intp(1000)}, MaxCompletionValues, intp(1000), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(0, 0)
			s.completion = &tt.in
			raw := resultJSON(t, call(t, s, mcp.MethodComplete, `{"ref":{"type":"ref/resource","uri":"x://{id}"},"argument":{"name":"id","value":"v"}}`))
			var res struct {
				Completion struct {
					Values  *[]string `json:"values"`
					Total   *int      `json:"total"`
					HasMore bool      `json:"hasMore"`
				} `json:"completion"`
			}
			if err := json.Unmarshal([]byte(raw), &res); err != nil {
				t.Fatal(err)
			}
			c := res.Completion
			if c.Values == nil {
				t.Fatalf("values missing or null: %s", raw)
			}
			if len(*c.Values) != tt.wantLen {
				t.Errorf("%d values, want %d", len(*c.Values), tt.wantLen)
			}
			if !slices.Equal(*c.Values, values(tt.wantLen)) {
				t.Errorf("values are not the first %d: %v", tt.wantLen, *c.Values)
			}
			if (c.Total == nil) != (tt.wantTotal == nil) || (c.Total != nil && *c.Total != *tt.wantTotal) {
				t.Errorf("total %v, want %v", c.Total, tt.wantTotal)
			}
			if c.HasMore != tt.wantMore {
				t.Errorf("hasMore %v, want %v", c.HasMore, tt.wantMore)
			}
		})
	}
}

func TestCompleteError(t *testing.T) {
	s := newServer(0, 0)
	s.completeErr = jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "no such prompt")
	r := call(t, s, mcp.MethodComplete, `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a"}}`)
	if r.Err != s.completeErr || r.Result != nil {
		t.Errorf("reply %+v, want the server's error", r)
	}
}

func TestSubscribeError(t *testing.T) {
	for _, method := range []string{mcp.MethodResourcesSubscribe, mcp.MethodResourcesUnsubscribe} {
		s := newServer(0, 0)
		s.subErr = jsonrpc.Errorf(jsonrpc.CodeResourceNotFound, "unknown")
		r := call(t, s, method, `{"uri":"x://nope"}`)
		if r.Err != s.subErr || r.Result != nil {
			t.Errorf("%s: reply %+v, want the server's error", method, r)
		}
	}
}

func TestSetLevel(t *testing.T) {
	for _, l := range []mcp.LoggingLevel{
		mcp.LevelDebug, mcp.LevelInfo, mcp.LevelNotice, mcp.LevelWarning,
		mcp.LevelError, mcp.LevelCritical, mcp.LevelAlert, mcp.LevelEmergency,
	} {
		t.Run(string(l), func(t *testing.T) {
			s := newServer(0, 0)
			got := resultJSON(t, call(t, s, mcp.MethodSetLevel, `{"level":"`+string(l)+`"}`))
			if got != `{}` {
				t.Errorf("result %s, want {}", got)
			}
			if !s.levelSet || s.level != l {
				t.Errorf("SetLogLevel(%q), set %v; want %q", s.level, s.levelSet, l)
			}
		})
	}
	for _, params := range []string{``, `{}`, `{"level":""}`, `{"level":"verbose"}`, `{"level":"DEBUG"}`, `{"level":"warn"}`} {
		t.Run("invalid "+params, func(t *testing.T) {
			s := newServer(0, 0)
			wantInvalidParams(t, call(t, s, mcp.MethodSetLevel, params), "logging level")
			if s.levelSet {
				t.Errorf("SetLogLevel(%q) called for an invalid level", s.level)
			}
		})
	}
}

func TestNegotiate(t *testing.T) {
	tests := []struct {
		requested, want string
	}{
		{mcp.Version20241105, mcp.Version20241105},
		{mcp.Version20250326, mcp.Version20250326},
		{mcp.Version20250618, mcp.Version20250618},
		{mcp.Version20251125, mcp.Version20251125},
		{mcp.Version20260728, mcp.LatestSessionVersion},
		{"", mcp.LatestSessionVersion},
		{"2024-10-07", mcp.LatestSessionVersion},
		{"2099-01-01", mcp.LatestSessionVersion},
		{"2025-06-18 ", mcp.LatestSessionVersion},
		{"latest", mcp.LatestSessionVersion},
	}
	for _, tt := range tests {
		if got := Negotiate(tt.requested, mcp.SessionVersions); got != tt.want {
			t.Errorf("Negotiate(%q) = %q, want %q", tt.requested, got, tt.want)
		}
	}
	for _, v := range mcp.SessionVersions {
		if got := Negotiate(v, mcp.SessionVersions); got != v {
			t.Errorf("Negotiate(%q) = %q", v, got)
		}
	}
	pinned := []string{mcp.Version20250618, mcp.Version20250326}
	if got := Negotiate(mcp.Version20251125, pinned); got != mcp.Version20250618 {
		t.Errorf("Negotiate beyond the pinned versions = %q, want the newest pinned", got)
	}
	if got := Negotiate(mcp.Version20250326, pinned); got != mcp.Version20250326 {
		t.Errorf("Negotiate of a pinned version = %q", got)
	}
	if got := Negotiate(mcp.Version20251125, nil); got != "" {
		t.Errorf("Negotiate with none offered = %q", got)
	}
}

func TestDecodeInitialize(t *testing.T) {
	p, err := DecodeInitialize(json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.ProtocolVersion != "2025-06-18" || p.ClientInfo.Name != "c" || p.ClientInfo.Version != "1" ||
		p.Capabilities.Roots == nil || !p.Capabilities.Roots.ListChanged {
		t.Errorf("params %+v", p)
	}

	tests := []struct {
		name, params, want string
	}{
		{"absent", ``, `"protocolVersion" is required`},
		{"null", `null`, `"protocolVersion" is required`},
		{"empty", `{}`, `"protocolVersion" is required`},
		{"empty version", `{"protocolVersion":""}`, `"protocolVersion" is required`},
		{"only capabilities", `{"capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, `"protocolVersion" is required`},
		{"version number", `{"protocolVersion":20250618}`, `"protocolVersion" must not be number`},
		{"clientInfo string", `{"protocolVersion":"2025-06-18","clientInfo":"c"}`, `"clientInfo" must not be string`},
		{"clientInfo name number", `{"protocolVersion":"2025-06-18","clientInfo":{"name":1}}`, `"clientInfo.name" must not be number`},
		{"capabilities array", `{"protocolVersion":"2025-06-18","capabilities":[]}`, `"capabilities" must not be array`},
		{"array params", `[]`, `malformed params object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw json.RawMessage
			if tt.params != "" {
				raw = json.RawMessage(tt.params)
			}
			p, err := DecodeInitialize(raw)
			if p != nil {
				t.Errorf("params %+v with an error", p)
			}
			wantInvalidParams(t, Failed(err), "Invalid params", tt.want)
		})
	}
}

func TestOutcomeHelpers(t *testing.T) {
	err := errors.New("x")
	if r := Failed(err); r.Err != err || r.Result != nil || r.Pending {
		t.Errorf("Failed = %+v", r)
	}
	if r := Answer(1); r.Result != 1 || r.Err != nil || r.Pending {
		t.Errorf("Answer = %+v", r)
	}
}

func TestHugePageSizeDoesNotOverflow(t *testing.T) {
	s := newServer(5, math.MaxInt)
	for _, method := range []string{mcp.MethodToolsList, mcp.MethodResourcesList} {
		rep := call(t, s, method, `{"cursor":"eyJvIjoxfQ"}`) // {"o":1}
		if rep.Err != nil {
			t.Fatalf("%s: %v", method, rep.Err)
		}
	}
}

func TestFind(t *testing.T) {
	tests := []struct {
		method    string
		params    string
		inSession bool
		code      int // 0: found
	}{
		{mcp.MethodToolsCall, `{"name":"a"}`, true, 0},
		{mcp.MethodToolsCall, `{"name":"a"}`, false, 0},
		{mcp.MethodPing, ``, true, 0},
		{mcp.MethodPing, ``, false, jsonrpc.CodeMethodNotFound},
		{mcp.MethodDiscover, ``, false, 0},
		{mcp.MethodDiscover, ``, true, jsonrpc.CodeMethodNotFound},
		{mcp.MethodInitialize, `{}`, true, jsonrpc.CodeInvalidRequest},
		{mcp.MethodInitialize, `{}`, false, jsonrpc.CodeMethodNotFound},
		{mcp.MethodToolsCall, `{"name":"a","Name":"b"}`, true, jsonrpc.CodeInvalidParams},
		{"unknown", ``, true, jsonrpc.CodeMethodNotFound},
	}
	for _, tt := range tests {
		f, e := Find(tt.method, json.RawMessage(tt.params), tt.inSession)
		switch {
		case tt.code == 0 && (e != nil || f == nil):
			t.Errorf("Find(%q, %s, %v) = %v; want the method", tt.method, tt.params, tt.inSession, e)
		case tt.code != 0 && (e == nil || e.Code != tt.code || f != nil):
			t.Errorf("Find(%q, %s, %v) = %v; want code %d", tt.method, tt.params, tt.inSession, e, tt.code)
		}
	}
}

func TestTaskMethods(t *testing.T) {
	s := newServer(0, 2)
	for _, method := range []string{mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel} {
		f, _ := Lookup(method)
		if out := f(s, json.RawMessage(`{"taskId":"t1"}`)); out.Err != nil || s.taskCall != method+" t1" {
			t.Errorf("%s: %+v, called %q", method, out, s.taskCall)
		}
		if out := f(s, json.RawMessage(`{}`)); out.Err == nil || !strings.Contains(out.Err.Error(), "taskId") {
			t.Errorf("%s without taskId: %v", method, out.Err)
		}
	}
	for i := range 3 {
		s.tasks = append(s.tasks, &mcp.SessionTask{TaskID: fmt.Sprint("t", i), Status: "working"})
	}
	f, _ := Lookup(mcp.MethodTasksList)
	out := f(s, nil)
	page := out.Result.(*mcp.ListTasksResult)
	if out.Err != nil || len(page.Tasks) != 2 || page.NextCursor == "" {
		t.Fatalf("first page: %+v", out)
	}
	out = f(s, json.RawMessage(`{"cursor":"`+page.NextCursor+`"}`))
	if page := out.Result.(*mcp.ListTasksResult); len(page.Tasks) != 1 || page.Tasks[0].TaskID != "t2" || page.NextCursor != "" {
		t.Fatalf("second page: %+v", out)
	}
	if out := f(s, json.RawMessage(`{"cursor":"bogus"}`)); out.Err == nil {
		t.Error("a bogus cursor was accepted")
	}
}
