package interop

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/host"
	"github.com/specter-mcp/specter/mcp"
)

// newHost connects a Host to server-everything over Streamable HTTP, and
// over stdio to server-filesystem and a TypeScript SDK v2 server, which
// speaks 2026-07-28; both have tools only.
func newHost(t *testing.T, opts *host.Options) *host.Host {
	t.Helper()
	srv := serve(t, []string{"PORT=" + freePort(t)}, everything, "streamableHttp")
	h, err := host.New(ctx(t), []host.Server{
		{Name: "everything", Transport: &client.HTTPTransport{URL: srv.URL()}},
		{Name: "fs", Transport: stdio(t, nil, filesystem, t.TempDir())},
		{Name: "ts", Transport: stdio(t, nil, ours, "v2-stdio")},
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return h
}

// TestHostFollowsCapabilities: server-filesystem and the TypeScript
// server declare tools only, so the Host must not ask them for resources
// or prompts, in either era; the lists are those of server-everything,
// and reads go there.
func TestHostFollowsCapabilities(t *testing.T) {
	c := ctx(t)
	h := newHost(t, nil)
	for _, name := range []string{"fs", "ts"} {
		if caps := h.Client(name).ServerCapabilities(); caps.Resources != nil || caps.Prompts != nil {
			t.Fatalf("%s now declares %+v: the test needs a server without resources and prompts", name, caps)
		}
	}
	if v := h.Client("ts").Version(); v != mcp.Version20260728 {
		t.Fatalf("the TypeScript server speaks %s, want 2026-07-28", v)
	}
	tools, err := h.Tools(c)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tools, func(x mcp.Tool) bool { return x.Name == "fs.list_allowed_directories" }) ||
		!slices.ContainsFunc(tools, func(x mcp.Tool) bool { return x.Name == "everything.echo" }) {
		t.Errorf("tools lack fs.list_allowed_directories or everything.echo: %d tools", len(tools))
	}
	resources, err := h.Resources(c)
	if err != nil {
		t.Fatalf("Resources: %v", err)
	}
	if len(resources) == 0 || slices.ContainsFunc(resources, func(r mcp.Resource) bool { return !strings.HasPrefix(r.Name, "everything.") }) {
		t.Errorf("resources: %+v", resources)
	}
	prompts, err := h.Prompts(c)
	if err != nil {
		t.Fatalf("Prompts: %v", err)
	}
	if len(prompts) == 0 {
		t.Error("no prompts from server-everything")
	}
	rr, err := h.ReadResource(c, resources[0].URI)
	if err != nil || len(rr.Contents) == 0 {
		t.Fatalf("ReadResource %s: %+v %v", resources[0].URI, rr, err)
	}
}

// TestHostResourceTemplates: server-everything's dynamic resources exist
// only through templates, which the Host lists, reads and completes.
func TestHostResourceTemplates(t *testing.T) {
	c := ctx(t)
	h := newHost(t, nil)
	templates, err := h.ResourceTemplates(c)
	if err != nil {
		t.Fatal(err)
	}
	const text = "demo://resource/dynamic/text/{resourceId}"
	i := slices.IndexFunc(templates, func(x mcp.ResourceTemplate) bool { return x.URITemplate == text })
	if i < 0 || !strings.HasPrefix(templates[i].Name, "everything.") {
		t.Fatalf("templates lack %s (or its name lacks its server): %+v", text, templates)
	}
	rr, err := h.ReadResource(c, "demo://resource/dynamic/text/3")
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].Text == nil || !strings.HasPrefix(*rr.Contents[0].Text, "Resource 3:") {
		t.Errorf("read: %+v", rr.Contents)
	}
	if _, err := h.ReadResource(c, "demo://nowhere/3"); err == nil || !strings.Contains(err.Error(), "demo://nowhere/3") {
		t.Errorf("a URI no server offers: %v", err)
	}
	comp, err := h.Complete(c, mcp.CompleteParams{
		Ref:      mcp.CompleteRef{Type: mcp.RefResource, URI: text},
		Argument: mcp.CompleteArgument{Name: "resourceId", Value: "7"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(comp.Completion.Values, []string{"7"}) {
		t.Errorf("completion of %s: %+v", text, comp.Completion)
	}
	// A prompt's argument, by the prompt's Host name.
	comp, err = h.Complete(c, mcp.CompleteParams{
		Ref:      mcp.CompleteRef{Type: mcp.RefPrompt, Name: "everything.resource-prompt"},
		Argument: mcp.CompleteArgument{Name: "resourceType", Value: "Te"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(comp.Completion.Values, []string{"Text"}) {
		t.Errorf("completion of the prompt's resourceType: %+v", comp.Completion)
	}
}
