package main

import (
	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/params"
)

// declarePrompts declares the prompts every caller may use.
func declarePrompts(r *specter.Router) {
	r.Prompt("code_review", codeReview,
		specter.Title("Code review"),
		specter.Description("Review the provided code for bugs, readability and style"),
		params.String("content", params.Required(), params.Description("The contents of the code")),
	)
}

func codeReview(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
	return specter.Reply(specter.UserMessage(
		"Please review the following code. Point out bugs first, then anything that hurts readability, " +
			"and suggest concrete changes.\n\n" + p.String("content")))
}
