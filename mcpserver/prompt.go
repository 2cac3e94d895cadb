package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// selfCheckPrompt tells an agent how to check its own work before it
// claims it done.
var selfCheckPrompt = &mcp.Prompt{
	Name:        "self_check",
	Title:       "Check your work before saying it is done",
	Description: "How to verify your own work with vouch before you report it complete.",
	Arguments: []*mcp.PromptArgument{
		{Name: "task", Description: "The task you were given, if not already in the conversation."},
	},
}

// selfCheckText is the prompt's message.
const selfCheckText = `Before you tell the user the task is done, check your work with vouch.

1. Write the report you are about to give: what you changed (each file), what you ran (each command and how it ended), what you tested and the result. Claim only what you did and saw; give numbers only when you counted them.
2. Call verify_output with:
   - task.goal: the task as you were given it;
   - output.summary: that report, word for word;
   - workspace: the directory you worked in, and base: the git commit you started from (git rev-parse HEAD before your first change), when there is one;
   - trace: the tool calls you made with their results, if you can give them.
3. Read the verdict.
   - pass: give the report as it is.
   - retry: do what the feedback says: finish the work, or correct the claim it names. Then verify again with attempt raised by one and the same id. Never reword a claim just to get past a check.
   - fail: tell the user plainly what is not done and why.
   - unverified: nothing was found false, but some claims could not be checked. Give the report, and tell the user which claims vouch could not check; or, if you can show one (run the test that shows it), do so and verify again.
4. If vouch could not verify the request (a tool error), fix the arguments it names and call again.`

func selfCheck(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	text := selfCheckText
	if task := strings.TrimSpace(r.Params.Arguments["task"]); task != "" {
		text = "The task: " + task + "\n\n" + text
	}
	return &mcp.GetPromptResult{
		Description: selfCheckPrompt.Description,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}
