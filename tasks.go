package specter

import (
	"slices"

	"github.com/specter-mcp/specter/internal/catalog"
	"github.com/specter-mcp/specter/internal/task"
)

// TaskSupport says whether a tool may run as a task.
type TaskSupport uint8

// Task support levels.
const (
	// TaskNone: the tool always answers within its request (default).
	TaskNone TaskSupport = iota
	// TaskOptional: when the client asks for a task, the work of a
	// NoReply becomes a task the client polls.
	TaskOptional
	// TaskRequired: the tool runs only as a task; other calls fail (-32021
	// on the 2026-07-28 wire, -32601 in a session, as each revision says).
	TaskRequired
)

// taskSupports spells each TaskSupport as execution.taskSupport does.
var taskSupports = [...]string{"", task.Optional, task.Required}

// Tasks sets a tool's task support. A task is what the work of a NoReply
// becomes when the client asks for one: on the 2026-07-28 wire by
// declaring the tasks extension, in a session of revision 2025-11-25 by
// a tools/call with a task member. The client gets a task id at once and
// polls it (tasks/get), on any node of the deployment; input the work
// asks for (Elicit, Sample, ListRoots) goes through the task.
func Tasks(support TaskSupport) DeclOption {
	return declOption(func(d *declaration) { d.tasks = support })
}

// hasTaskTools reports whether a tool of cat may run as a task.
func hasTaskTools(cat *catalog.Catalog[*declaration]) bool {
	return slices.ContainsFunc(cat.Tools, func(d *declaration) bool { return d.tasks != TaskNone })
}

// AnonymousTasks lets callers without a principal run tools as tasks on
// the 2026-07-28 wire. It is off by default: there a task outlives its
// request, and no session ties it to its caller, so a server that knows
// nothing of a caller cannot bind the task to it as the tasks extension
// asks. Without it, such a caller's TaskOptional tools answer within the
// request (the server decides whether to make a task) and its
// TaskRequired tools are refused with -32600. With it, an anonymous
// caller's tasks belong to its client address, as the per-principal
// quotas count it (an IPv6 /64 as one; behind a proxy set Echo's
// IPExtractor, or every anonymous caller shares the proxy's): another
// address cannot read, answer or cancel them even with the id, though
// callers behind one address can. Session-era tasks belong to their
// session either way.
func AnonymousTasks() RouterOption {
	return routerOption(func(r *Router) { r.cfg.anonymousTasks = true })
}
