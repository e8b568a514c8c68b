package handlers

import (
	"encoding/json"

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
	sk, err := s.Skill(p.URI)
	if err != nil {
		return Failed(err)
	}
	return Answer(&mcp.GetSkillResult{Skill: *sk})
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
	children, err := s.ReadDirectory(p.URI)
	if err != nil {
		return Failed(err)
	}
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
