// Package all registers every built-in check kind. Import it for its side
// effects in a binary or test that compiles criteria:
//
//	import _ "github.com/vouchgate/vouch/check/all"
//
// It plays the part caddy's modules/standard plays: the one place that lists
// the built-in kinds, so a program gets them all with one import and a
// smaller build can import only the kinds it wants.
package all

import (
	// Kind cel.
	_ "github.com/vouchgate/vouch/check/cel"
	_ "github.com/vouchgate/vouch/check/claims"

	// Analyzer output.format.
	_ "github.com/vouchgate/vouch/check/output"
	// Analyzer plan.structure.
	_ "github.com/vouchgate/vouch/check/plan"
	// Analyzer injection.scan.
	_ "github.com/vouchgate/vouch/check/injection"
	// Analyzer moderation.summary.
	_ "github.com/vouchgate/vouch/check/moderation"
	// Analyzer synthesis.outputs.
	_ "github.com/vouchgate/vouch/check/synthesis"
	// Analyzer grounding.mentions.
	_ "github.com/vouchgate/vouch/check/grounding"
	// Kinds file_exists and file_changed.
	_ "github.com/vouchgate/vouch/check/fs"
	// Kinds doc_comments and symbol_exists.
	_ "github.com/vouchgate/vouch/check/symbols"
	// Kind command.
	_ "github.com/vouchgate/vouch/check/shell"
	// Kinds contains, not_contains, regex, sections, length, json,
	// json_schema and tool_called.
	_ "github.com/vouchgate/vouch/check/content"
)
