package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// The URIs of the studies resources. studyURI is written Plug-style; the
// router lists it as the RFC 6570 template my_app://studies/{id}.
const (
	studyURI   = "my_app://studies/:id"
	studiesURI = "my_app://studies"
)

// studiesPageSize is how many studies one page of resources/list holds.
const studiesPageSize = 50

// codeResourceNotFound is the JSON-RPC error code MCP gives a resource
// that does not exist.
const codeResourceNotFound = -32002

// Study is a research study of the demo data set.
type Study struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status"`
}

// studyRepo is an in-memory store of studies, sorted by id. The
// dashboard changes their status (update_study) while other handlers
// read them, so every access holds mu and what leaves the repository is
// a copy.
type studyRepo struct {
	mu      sync.RWMutex
	studies []Study
}

var statuses = []string{"draft", "recruiting", "active", "completed"}

// seedStudies returns a repository of n made-up studies with ids "001",
// "002", and so on.
func seedStudies(n int) *studyRepo {
	subjects := []string{"Sleep", "Caffeine", "Remote work", "Urban cycling", "Bilingual reading", "Night shifts", "Music practice"}
	outcomes := []string{"memory", "mood", "productivity", "heart rate", "attention"}
	repo := &studyRepo{studies: make([]Study, n)}
	for i := range n {
		repo.studies[i] = Study{
			ID:     fmt.Sprintf("%03d", i+1),
			Title:  fmt.Sprintf("%s and %s", subjects[i%len(subjects)], outcomes[i%len(outcomes)]),
			Status: statuses[i%len(statuses)],
		}
	}
	return repo
}

// index returns the position of the first study whose id is not less
// than id.
func (r *studyRepo) index(id string) int {
	return sort.Search(len(r.studies), func(i int) bool { return r.studies[i].ID >= id })
}

// Get returns the study with the id.
func (r *studyRepo) Get(id string) (Study, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	i := r.index(id)
	if i < len(r.studies) && r.studies[i].ID == id {
		return r.studies[i], true
	}
	return Study{}, false
}

// errBadCursor reports a cursor that Page did not hand out.
var errBadCursor = errors.New("invalid cursor")

// Page returns up to size studies after cursor ("" for the first page)
// and the cursor of the next page ("" after the last). The cursor is the
// last id of the page, encoded: pages stay consistent even if studies
// were added between two calls, which an offset would not guarantee.
func (r *studyRepo) Page(cursor string, size int) (page []Study, next string, err error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	start := 0
	if cursor != "" {
		after, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(after) == 0 {
			return nil, "", errBadCursor
		}
		start = r.index(string(after))
		if start < len(r.studies) && r.studies[start].ID == string(after) {
			start++
		}
	}
	end := min(start+size, len(r.studies))
	page = slices.Clone(r.studies[start:end])
	if end < len(r.studies) {
		next = base64.RawURLEncoding.EncodeToString([]byte(page[len(page)-1].ID))
	}
	return page, next, nil
}

// IDsWithPrefix returns the ids that start with prefix, in order.
func (r *studyRepo) IDsWithPrefix(prefix string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var ids []string
	for _, s := range r.studies[r.index(prefix):] {
		if !strings.HasPrefix(s.ID, prefix) {
			break
		}
		ids = append(ids, s.ID)
	}
	return ids
}

// Filter returns the studies with the status (any, if "") whose title
// holds every word of query, case-insensitively, and how many studies
// there are in all.
func (r *studyRepo) Filter(status, query string) (matches []Study, total int) {
	words := strings.Fields(strings.ToLower(query))
	r.mu.RLock()
	defer r.mu.RUnlock()
	matches = []Study{}
	for _, s := range r.studies {
		title := strings.ToLower(s.Title)
		if (status == "" || s.Status == status) && !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(title, w) }) {
			matches = append(matches, s)
		}
	}
	return matches, len(r.studies)
}

// SetStatus changes the status of the study with the id and returns it.
func (r *studyRepo) SetStatus(id, status string) (Study, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := r.index(id)
	if i == len(r.studies) || r.studies[i].ID != id {
		return Study{}, false
	}
	r.studies[i].Status = status
	return r.studies[i], true
}

// StudiesSummary counts the studies.
type StudiesSummary struct {
	Total    int            `json:"total"`
	ByStatus map[string]int `json:"byStatus"`
}

// Summary counts the studies in total and by status.
func (r *studyRepo) Summary() StudiesSummary {
	r.mu.RLock()
	defer r.mu.RUnlock()
	sum := StudiesSummary{Total: len(r.studies), ByStatus: map[string]int{}}
	for _, s := range r.studies {
		sum.ByStatus[s.Status]++
	}
	return sum
}

// declareStudies declares the studies resources: one resource per study,
// listed page by page and completable by id, and a summary of them all.
func declareStudies(r *specter.Router, repo *studyRepo) {
	r.Resource(studyURI, func(p specter.Params, req *specter.Request, _ *specter.Context) specter.Result {
		s, ok := repo.Get(p.String("id"))
		if !ok {
			return specter.Error(jsonrpc.Errorf(codeResourceNotFound, "Resource not found: %s", req.Name).
				WithData(map[string]string{"uri": req.Name}))
		}
		return specter.Reply(s)
	},
		specter.Name("study"), specter.Title("Study"), specter.MIMEType("application/json"),
		specter.Description("One study as JSON: its id, title and status"),
		specter.List(func(_ specter.Params, req *specter.Request, c *specter.Context) specter.Result {
			page, next, err := repo.Page(req.Cursor(), studiesPageSize)
			if err != nil {
				return specter.Error(jsonrpc.Errorf(jsonrpc.CodeInvalidParams,
					"Invalid params: the cursor was not handed out by this server; list again without a cursor"))
			}
			resources := make([]mcp.Resource, len(page))
			for i, s := range page {
				uri, err := r.ResourceURI(studyURI, map[string]any{"id": s.ID})
				if err != nil {
					return specter.Error(err)
				}
				resources[i] = mcp.Resource{URI: uri, Name: "study-" + s.ID, Title: s.Title, MIMEType: "application/json"}
			}
			c.PutNextCursor(next)
			return specter.Reply(resources)
		}),
		specter.Complete("id", specter.CompleterFunc(func(_ context.Context, value string, _ map[string]string) ([]string, error) {
			return repo.IDsWithPrefix(value), nil
		})),
	)

	r.Resource(studiesURI, func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply(repo.Summary())
	},
		specter.Name("studies"), specter.Title("Studies summary"), specter.MIMEType("application/json"),
		specter.Description("How many studies there are, in total and by status"),
	)
}
