package main

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestResourcesListWalksEveryStudyOnce(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, basicUser)
	c.initialize(nil)
	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var res struct {
			Resources []struct {
				URI string `json:"uri"`
			} `json:"resources"`
			NextCursor string `json:"nextCursor"`
		}
		c.result("resources/list", params, &res)
		if len(res.Resources) > studiesPageSize {
			t.Errorf("page %d holds %d resources, want at most %d", pages, len(res.Resources), studiesPageSize)
		}
		for _, r := range res.Resources {
			if seen[r.URI] {
				t.Errorf("%s listed twice", r.URI)
			}
			seen[r.URI] = true
		}
		pages++
		if cursor = res.NextCursor; cursor == "" {
			break
		}
		if pages > 10 {
			t.Fatal("resources/list does not end")
		}
	}
	if len(seen) != 122 {
		t.Errorf("listed %d resources, want 120 studies, the summary and the dashboard", len(seen))
	}
	for _, uri := range []string{"my_app://studies", "my_app://studies/001", "my_app://studies/120", dashboardURI} {
		if !seen[uri] {
			t.Errorf("%s not listed", uri)
		}
	}
	if pages < 3 {
		t.Errorf("listed in %d pages; 120 studies need at least 3 pages of %d", pages, studiesPageSize)
	}
}

// readResource returns the text and MIME type of a resource.
func readResource(t *testing.T, c *client, uri string) (text, mimeType string) {
	t.Helper()
	var res struct {
		Contents []struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType"`
			Text     string `json:"text"`
		} `json:"contents"`
	}
	c.result("resources/read", map[string]any{"uri": uri}, &res)
	if len(res.Contents) != 1 || res.Contents[0].URI != uri {
		t.Fatalf("read %s: contents %+v", uri, res.Contents)
	}
	return res.Contents[0].Text, res.Contents[0].MIMEType
}

func TestReadStudies(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, basicUser)
	c.initialize(nil)

	text, mimeType := readResource(t, c, "my_app://studies/042")
	var s Study
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		t.Fatalf("study is not JSON: %q", text)
	}
	if s.ID != "042" || s.Title == "" || !slices.Contains(statuses, s.Status) || mimeType != "application/json" {
		t.Errorf("read study %+v as %s", s, mimeType)
	}

	text, _ = readResource(t, c, "my_app://studies")
	var sum StudiesSummary
	if err := json.Unmarshal([]byte(text), &sum); err != nil {
		t.Fatalf("summary is not JSON: %q", text)
	}
	if sum.Total != 120 || sum.ByStatus["active"] != 30 {
		t.Errorf("summary %+v, want 120 studies, 30 of them active", sum)
	}

	res, _ := c.call("resources/read", map[string]any{"uri": "my_app://studies/999"})
	if res.Error == nil || res.Error.Code != codeResourceNotFound {
		t.Errorf("reading a missing study answered %s %+v, want error %d", res.Result, res.Error, codeResourceNotFound)
	}
}

func TestCompleteStudyID(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, basicUser)
	c.initialize(nil)
	var res struct {
		Completion struct {
			Values []string `json:"values"`
		} `json:"completion"`
	}
	c.result("completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/resource", "uri": "my_app://studies/{id}"},
		"argument": map[string]any{"name": "id", "value": "11"},
	}, &res)
	want := []string{"110", "111", "112", "113", "114", "115", "116", "117", "118", "119"}
	if !slices.Equal(res.Completion.Values, want) {
		t.Errorf("completing 11 gave %v, want %v", res.Completion.Values, want)
	}
}

func TestStudyRepoPageRejectsForeignCursor(t *testing.T) {
	repo := seedStudies(3)
	if _, _, err := repo.Page("not base64!", 2); err == nil {
		t.Error("a cursor Page did not hand out was accepted")
	}
	first, next, err := repo.Page("", 2)
	if err != nil || len(first) != 2 || next == "" {
		t.Fatalf("first page %v, next %q, err %v", first, next, err)
	}
	rest, next, err := repo.Page(next, 2)
	if err != nil || len(rest) != 1 || rest[0].ID != "003" || next != "" {
		t.Errorf("last page %v, next %q, err %v", rest, next, err)
	}
}
