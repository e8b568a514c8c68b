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
