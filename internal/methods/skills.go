package methods

import (
	"encoding/json"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// listSkills answers skills/list. An entry is one item of the page, so a
// skill's files are never split across pages.
func listSkills(s Server, params json.RawMessage) Outcome {
	skills, err := s.Skills()
	if err != nil {
		return Failed(err)
	}
	return list(s, params, skills, func(page []mcp.Skill, next string) any {
		return &mcp.ListSkillsResult{Skills: page, NextCursor: next}
	})
}

// getSkill answers skills/get: one entry, so no cursor.
func getSkill(s Server, params json.RawMessage) Outcome {
	var p mcp.GetSkillParams
	if err := decode(params, &p); err != nil {
		return Failed(err)
	}
	if p.URI == "" {
		return invalidParams(`Invalid params: "uri" is required`)
	}
	sk, err := s.SkillAt(p.URI)
	if err != nil {
		return Failed(err)
	}
	if sk == nil || sk.Entry.URI != p.URI {
		return Failed(unknownURI("Unknown skill", p.URI))
	}
	return Answer(&mcp.GetSkillResult{Skill: sk.Entry})
}

// readDirectory answers resources/directory/read, a page of the
// directory's children at a time, like resources/list.
func readDirectory(s Server, params json.RawMessage) Outcome {
	var p mcp.ReadDirectoryParams
	if err := decode(params, &p); err != nil {
		return Failed(err)
	}
	if p.URI == "" {
		return invalidParams(`Invalid params: "uri" is required`)
	}
	sk, err := s.SkillAt(p.URI)
	if err != nil {
		return Failed(err)
	}
	if sk == nil || sk.Dirs[p.URI] == nil {
		return Failed(unknownURI("Not a directory", p.URI))
	}
	children := sk.Dirs[p.URI]
	page, next, err := paginate(children, p.Cursor, s.PageSize())
	if err != nil {
		return Failed(err)
	}
	res := &mcp.ReadDirectoryResult{Resources: make([]mcp.Resource, len(page)), NextCursor: next}
	for i, r := range page {
		res.Resources[i] = *r
	}
	return Answer(res)
}

// unknownURI is the -32602 error, with the URI in its data, for a URI a
// 2026-07-28 method does not serve.
func unknownURI(what, uri string) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s: %s", what, uri).WithData(map[string]string{"uri": uri})
}
