package main

import (
	"strings"
	"testing"
)

func TestCodeReviewPrompt(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, basicUser)
	c.initialize(nil)
	code := "func add(a, b int) int { return a - b }"
	var res struct {
		Messages []struct {
			Role    string `json:"role"`
			Content struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	c.result("prompts/get", map[string]any{"name": "code_review", "arguments": map[string]string{"content": code}}, &res)
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" || !strings.Contains(res.Messages[0].Content.Text, code) {
		t.Errorf("code_review messages %+v, want one user message holding the code", res.Messages)
	}

	missing, _ := c.call("prompts/get", map[string]any{"name": "code_review"})
	if missing.Error == nil || missing.Error.Code != -32602 || !strings.Contains(missing.Error.Message, "content") {
		t.Errorf("code_review without content answered %s %+v, want -32602 naming content", missing.Result, missing.Error)
	}
}
