// Package option seals the declaration options of package specter.
//
// specter.Option is an interface whose one method takes a Seal. Only the
// packages of this module can name Seal, so only they can make an Option:
// the set of things r.Tool, r.Prompt and r.Resource accept is closed, and
// passing anything else, such as a params.Option, is a compile error
// rather than a panic at start-up.
package option

// Seal is the argument of the method that marks a declaration option.
type Seal struct{}
