package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/specter-mcp/specter/internal/skills"
	"github.com/specter-mcp/specter/mcp"
)

// ErrSkillVerification is in the chain of every error about a skill file
// that does not match its entry: its size, its digest, or (for SKILL.md)
// its frontmatter. Content that fails verification is never returned.
var ErrSkillVerification = errors.New("skill verification failed")

// ListSkills returns one page of the server's skills (skills extension).
// Listing reads no skill file: files are fetched only by LoadSkill and
// ReadSkillFile, when they are needed.
func (c *Client) ListSkills(ctx context.Context, cursor string) (*mcp.ListSkillsResult, error) {
	var res mcp.ListSkillsResult
	if err := c.call(ctx, mcp.MethodSkillsList, mcp.PaginatedParams{Cursor: cursor}, &res, nil); err != nil {
		return nil, err
	}
	return &res, nil
}

// LoadSkill reads a skill's SKILL.md and verifies it against the entry
// the server listed: size, digest, and the YAML frontmatter compared
// field by field with the entry's. It returns the file's bytes.
func (c *Client) LoadSkill(ctx context.Context, s mcp.Skill) ([]byte, error) {
	body, err := c.ReadSkillFile(ctx, s, s.URI)
	if err != nil {
		return nil, err
	}
	if err := sameFrontmatter(body, s.Frontmatter); err != nil {
		return nil, fmt.Errorf("mcp client: skill %s: %w: %w", s.URI, ErrSkillVerification, err)
	}
	return body, nil
}

// ReadSkillFile reads one file of a skill, by its URI, and verifies its
// size and digest against the skill's entry.
func (c *Client) ReadSkillFile(ctx context.Context, s mcp.Skill, uri string) ([]byte, error) {
	var entry *mcp.SkillResource
	for i := range s.Resources {
		if s.Resources[i].URI == uri {
			entry = &s.Resources[i]
		}
	}
	if entry == nil {
		return nil, fmt.Errorf("mcp client: %s is not a file of skill %s", uri, s.URI)
	}
	res, err := c.ReadResource(ctx, uri)
	if err != nil {
		return nil, err
	}
	if len(res.Contents) != 1 {
		return nil, fmt.Errorf("mcp client: %s: %w: %d contents, want 1", uri, ErrSkillVerification, len(res.Contents))
	}
	var body []byte
	switch rc := res.Contents[0]; {
	case rc.Text != nil:
		body = []byte(*rc.Text)
	case rc.Blob != nil:
		if body, err = base64.StdEncoding.DecodeString(*rc.Blob); err != nil {
			return nil, fmt.Errorf("mcp client: %s: %w: %w", uri, ErrSkillVerification, err)
		}
	}
	if int64(len(body)) != entry.Size {
		return nil, fmt.Errorf("mcp client: %s: %w: %d bytes, the entry says %d", uri, ErrSkillVerification, len(body), entry.Size)
	}
	if got := skills.Digest(body); got != entry.Digest {
		return nil, fmt.Errorf("mcp client: %s: %w: digest %s, the entry says %s", uri, ErrSkillVerification, got, entry.Digest)
	}
	return body, nil
}

// sameFrontmatter compares a SKILL.md's YAML frontmatter with the JSON
// frontmatter of its entry, as JSON values, read the way the server reads
// its own (skills.Frontmatter).
func sameFrontmatter(skillMD []byte, entry json.RawMessage) error {
	fromFile, err := skills.Frontmatter(skillMD)
	if err != nil {
		return fmt.Errorf("SKILL.md: %w", err)
	}
	b, err := json.Marshal(fromFile)
	if err != nil {
		return fmt.Errorf("frontmatter: %w", err)
	}
	var got, want any
	_ = json.Unmarshal(b, &got)
	if err := json.Unmarshal(entry, &want); err != nil {
		return fmt.Errorf("the entry's frontmatter: %w", err)
	}
	if !reflect.DeepEqual(got, want) {
		return errors.New("the frontmatter differs from the entry's")
	}
	return nil
}
