package mcp

import "encoding/json"

// ExtensionSkills is the identifier of the skills extension (SEP-2640),
// declared in the extensions of server capabilities.
const ExtensionSkills = "io.modelcontextprotocol/skills"

// MIMEDirectory is the MIME type of a directory resource, whose children
// resources/directory/read lists (skills extension).
const MIMEDirectory = "inode/directory"

// Skill is a skill entry of skills/list and skills/get (skills extension,
// SEP-2640): the URI of the skill's SKILL.md, its YAML frontmatter as
// JSON, and every file of the skill with its digest and size.
type Skill struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Resources   []SkillResource `json:"resources"`
}

// SkillResource is one file of a skill: Digest is "sha256:" and the
// lowercase hex SHA-256 of the file's raw bytes, Size their length.
type SkillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// ListSkillsResult answers skills/list.
type ListSkillsResult struct {
	Skills     []Skill `json:"skills"`
	NextCursor string  `json:"nextCursor,omitempty"`
	ResultBase
}

// GetSkillParams is the params of skills/get: the URI of a SKILL.md.
type GetSkillParams struct {
	URI string `json:"uri"`
}

// GetSkillResult answers skills/get.
type GetSkillResult struct {
	Skill Skill `json:"skill"`
	ResultBase
}

// ReadDirectoryParams is the params of resources/directory/read.
type ReadDirectoryParams struct {
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

// ReadDirectoryResult answers resources/directory/read: the direct
// children of a directory, sub-directories with MIMEDirectory.
type ReadDirectoryResult struct {
	Resources  []Resource `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
	ResultBase
}
