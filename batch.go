package specter

import "github.com/specter-mcp/specter/internal/catalog"

// batch is the catalog Declare builds: changed in place, published once.
type batch struct {
	cat     *catalog.Catalog[*declaration] // a Clone, or a catalog Without made from one
	changed [3]bool                        // by kind: a list_changed is owed
}

func (b *batch) insert(cat *catalog.Catalog[*declaration], d *declaration) error {
	if err := cat.Insert(d); err != nil {
		return err
	}
	b.cat, b.changed[d.kind] = cat, true
	return nil
}

// declared is the catalog declarations change: Declare's batch while one
// is open, the published one otherwise. r.mu is held.
func (r *Router) declared() *catalog.Catalog[*declaration] {
	if r.batch != nil {
		return r.batch.cat
	}
	return r.catalog.Load()
}

// Declare runs declare, which declares (or removes) tools, prompts and
// resources on r, and publishes its changes together: one new catalog
// and at most one list_changed notification per kind, rather than one
// of each per declaration. Calls see none of them until declare returns,
// or panics over a bad declaration (what it declared before is published
// then too). Use it to declare many items at once, as openapi.Mount
// does: each lone declaration copies the router's whole catalog, so n of
// them cost O(n²).
//
// A Declare inside declare joins the outer batch. Declarations that other
// goroutines make meanwhile join it too, and become visible with it.
func (r *Router) Declare(declare func()) {
	r.mu.Lock()
	if r.batch != nil {
		r.mu.Unlock()
		declare()
		return
	}
	r.batch = &batch{cat: r.catalog.Load().Clone()}
	r.mu.Unlock()
	defer r.endBatch()
	declare()
}

// endBatch ends Declare's batch.
func (r *Router) endBatch() {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.batch
	r.batch = nil
	r.catalog.Store(b.cat)
	for k, changed := range b.changed {
		if changed {
			r.changed(kind(k))
		}
	}
}

// isDeclared reports whether the catalog declarations change declares
// the kind k item name.
func (r *Router) isDeclared(k kind, name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.declared().Declares(k, name)
}
