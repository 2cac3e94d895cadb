package claimtext

import (
	"fmt"
	"testing"
)

func TestStatementsDump(t *testing.T) {
	for _, s := range []string{
		"Added ParseRange to ranges.py. All tests pass.",
		"I've updated config.go so that Load reads the timeout from the SVC_TIMEOUT environment variable, falling back to 5s.",
		"Implemented the retryWithBackoff helper in src/net/retry.ts; it retries a failing call up to five times, doubling the delay each time.",
		"Created lib/slugify.js, which exports a slugify function that lowercases a title and joins its words with dashes.",
		"Updated the README.md with installation instructions for pip and from source.",
		"Modified src/lib.rs to add a parse_header function that splits a header line at its first colon.",
		"mean now returns 0 for an empty list.\nAll 2 tests pass.",
		"Fixed Abs in abs.go for negative inputs, and go test ./... is green.",
		"Fixed the off-by-one error in paginate() in pagination.py, so page 1 now starts at the first item.",
		"Removed the deprecated old_parse helper from utils.py; nothing called it any more.",
		"I deleted the unused `formatLegacy` function from src/format.ts.",
		"Removed legacy.go, which only held the old GetOld alias.",
		"Renamed fetch_data to load_records in loader.py and updated its caller in main.py.",
		"ParseArgs was renamed to parseArgs in cli.go, and Run now calls parseArgs.",
		"Renamed src/utils.js to src/helpers.js and updated the import in src/main.js.",
		"The test suite is green now (2 passed) after the change to slug.py.",
		"Words in wc.go now uses strings.Fields. I ran the tests and they all pass.",
		"Looks correct. I'm ready to submit.",
		"Everything looks correct. I'm ready to submit.",
		"## Summary of changes\n- Added `parse` to parser.go\n- Let me know if you need anything else.\n\nI will add docs next.",
		"If the tests fail, run make clean. Run `go test ./...` to check.",
		"3 methods remain undocumented. I could not run the tests because the network is down.",
		"Committed and pushed to origin/main. The working tree is clean.",
		"No behaviour change: only the names moved.",
		"Done!",
	} {
		fmt.Printf("%q\n", s)
		for _, st := range Statements(s) {
			fmt.Printf("   %-10s %-8s %q\n", st.Kind, st.Action, st.Text)
		}
	}
}
