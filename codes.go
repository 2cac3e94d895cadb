package vouch

import (
	"slices"
	"strings"
)

// CodeKind says where a code appears in a report.
type CodeKind string

// The code kinds.
const (
	CodeCheck   CodeKind = "check"   // in a check's evidence.code, when it failed or stayed undecided
	CodeWarning CodeKind = "warning" // in a warning's code
	CodeError   CodeKind = "error"   // in an input error's code
)

// CodeInfo describes one code of the catalogue.
type CodeInfo struct {
	Code    string   `json:"code"`
	Kind    CodeKind `json:"kind"`
	Meaning string   `json:"meaning"`
}

// Check codes: the reason a check failed or stayed undecided.
const (
	CodeTextMissing      = "TEXT_MISSING"
	CodeTextPresent      = "TEXT_PRESENT"
	CodePatternNotFound  = "PATTERN_NOT_FOUND"
	CodeSectionMissing   = "SECTION_MISSING"
	CodeLengthOutOfRange = "LENGTH_OUT_OF_RANGE"
	CodeJSONInvalid      = "JSON_INVALID"
	CodeSchemaViolation  = "SCHEMA_VIOLATION"
	CodeCELFalse         = "CEL_FALSE"
	CodeCELError         = "CEL_ERROR"
	CodeToolNotCalled    = "TOOL_NOT_CALLED"
	CodeNegatedMatch     = "NEGATED_MATCH"
	CodeTargetMissing    = "TARGET_MISSING"
	CodeTargetUnreadable = "TARGET_UNREADABLE"
	CodeNoWorkspace      = "NO_WORKSPACE"
	CodeCheckUnavailable = "CHECK_UNAVAILABLE"
	CodeCheckPanicked    = "CHECK_PANICKED"
	CodeCheckCancelled   = "CHECK_CANCELLED"
	CodeInputTooLarge    = "INPUT_TOO_LARGE"

	CodePathOutsideWorkspace  = "PATH_OUTSIDE_WORKSPACE"
	CodeFileUnreadable        = "FILE_UNREADABLE"
	CodeFileMissing           = "FILE_MISSING"
	CodeFileNotDeleted        = "FILE_NOT_DELETED"
	CodeSizeMismatch          = "SIZE_MISMATCH"
	CodeLinesMismatch         = "LINES_MISMATCH"
	CodeRegionOutsideFile     = "REGION_OUTSIDE_FILE"
	CodeTestClaimContradicted = "TEST_CLAIM_CONTRADICTED"
	CodeTestNotRun            = "TEST_NOT_RUN"
	CodeTestInconclusive      = "TEST_INCONCLUSIVE"
	CodeTestStale             = "TEST_STALE"
	CodeGitClaimContradicted  = "GIT_CLAIM_CONTRADICTED"
	CodeGitNotRun             = "GIT_NOT_RUN"
	CodeVerifyNotRun          = "VERIFY_NOT_RUN"
	CodeVerifyContradicted    = "VERIFY_CONTRADICTED"
	CodePluginError           = "PLUGIN_ERROR"
	CodeItemsMismatch         = "ITEMS_MISMATCH"
	CodeEmptySummary          = "EMPTY_SUMMARY"
	CodeErrorWords            = "ERROR_WORDS"
	CodeCommandNotAllowed     = "COMMAND_NOT_ALLOWED"
	CodeCommandFailed         = "COMMAND_FAILED"
	CodeCommandTimedOut       = "COMMAND_TIMED_OUT"
	CodeCommandKilled         = "COMMAND_KILLED"
	CodeDocMissing            = "DOC_MISSING"
	CodeSymbolMissing         = "SYMBOL_MISSING"
	CodeNoSymbols             = "NO_SYMBOLS"
	CodeSymbolUnresolved      = "SYMBOL_UNRESOLVED"
	CodeCodeUnparsable        = "CODE_UNPARSABLE"
	CodeNoChange              = "NO_CHANGE"
	CodeRegionUnchanged       = "REGION_UNCHANGED"
	CodeGitUnavailable        = "GIT_UNAVAILABLE"
	CodeCountMismatch         = "COUNT_MISMATCH"
	CodeCountUndecided        = "COUNT_UNDECIDED"
	CodeSymbolUnchanged       = "SYMBOL_UNCHANGED"
	CodeBehaviourChanged      = "BEHAVIOUR_CHANGED"
	CodeSymbolStillDefined    = "SYMBOL_STILL_DEFINED"
	CodeRenameNotDone         = "RENAME_NOT_DONE"
	CodeUnchangedClaimFalse   = "UNCHANGED_CLAIM_FALSE"
	CodeJudgeRefuted          = "JUDGE_REFUTED"

	CodeMentionsRefuted    = "MENTIONS_REFUTED"
	CodeUnsupportedClaim   = "UNSUPPORTED_CLAIM"
	CodeStatementsUnfound  = "STATEMENTS_UNFOUND"
	CodeSourceContradicted = "SOURCE_CONTRADICTED"
	CodeContradiction      = "CONTRADICTION"
	CodeSubgoalUnknown     = "SUBGOAL_UNKNOWN"
	CodeDependencyCycle    = "DEPENDENCY_CYCLE"
	CodeParallelDependency = "PARALLEL_DEPENDENCY"
	CodeAgentUnknown       = "AGENT_UNKNOWN"
	CodeAgentIncapable     = "AGENT_INCAPABLE"
	CodeTopicUncovered     = "TOPIC_UNCOVERED"
	CodeOutputUnused       = "OUTPUT_UNUSED"
	CodePointDropped       = "POINT_DROPPED"
	CodeSummaryTruncated   = "SUMMARY_TRUNCATED"
	CodeFormatInvalid      = "FORMAT_INVALID"
)

// Warning codes.
const (
	CodeNothingDecided   = "NOTHING_DECIDED"
	CodeMustUndecided    = "MUST_UNDECIDED"
	CodeNoJudge          = "NO_JUDGE"
	CodeJudgeFailed      = "JUDGE_FAILED"
	CodeJudgeDisagree    = "JUDGE_DISAGREEMENT"
	CodeTooManyRefuted   = "TOO_MANY_REFUTED"
	CodeClaimsUnverified = "CLAIMS_UNVERIFIED"
	CodePromptInjection  = "PROMPT_INJECTION"
	// CodeInjectionInEvidence flags instructions found in what a tool
	// returned; they are evidence, and never decide the verdict.
	CodeInjectionInEvidence = "INJECTION_IN_EVIDENCE"
	CodeAnalyzerFailed      = "ANALYZER_FAILED"
	CodeLastAttempt         = "LAST_ATTEMPT"
	CodeUnclaimedChange     = "UNCLAIMED_CHANGE"
	CodeUnverifiedFile      = "UNVERIFIED_FILE"
	CodeUnverifiedPackage   = "UNVERIFIED_PACKAGE"
	CodeUnverifiedSymbol    = "UNVERIFIED_SYMBOL"
	CodeUnverifiedURL       = "UNVERIFIED_URL"
	CodeFallBack            = "FALL_BACK_TO_OUTPUTS"
	CodeSameModelJudge      = "SAME_MODEL_JUDGE"
	CodeJudgeBypassed       = "JUDGE_BYPASSED"
	CodeJudgeBudget         = "JUDGE_BUDGET"
	// CodeLowConfidence flags a report whose confidence is below the
	// policy's reviewBelow: a person should review its verdict.
	CodeLowConfidence = "LOW_CONFIDENCE"
)

// catalogue is the one list of every code vouch emits; a test checks that
// every code constant is listed. Codes sorts it.
var catalogue = []CodeInfo{
	{CodeCELError, CodeCheck, "a CEL expression failed to evaluate (undecided)"},
	{CodeCELFalse, CodeCheck, "a CEL expression evaluated to false"},
	{CodeCheckCancelled, CodeCheck, "the verification was cancelled or timed out before the check decided (undecided)"},
	{CodeCheckPanicked, CodeCheck, "a check crashed; the fault is vouch's and the check is undecided"},
	{CodeCheckUnavailable, CodeCheck, "the check kind cannot run in this build or setting (undecided)"},
	{CodeInputTooLarge, CodeCheck, "a text or file is over the policy's limits (limits.*) for this check, which would take too long on it (undecided)"},
	{CodeCommandFailed, CodeCheck, "a command run by vouch exited with another code than expected"},
	{CodeCommandNotAllowed, CodeCheck, "a command was not run: not on the policy's allow-list, or shell syntax without commands.shell (undecided)"},
	{CodeCommandTimedOut, CodeCheck, "a command run by vouch did not finish within commands.timeout or the verification's deadline (undecided)"},
	{CodeCommandKilled, CodeCheck, "a command run by vouch was killed at a resource limit of commands.limits (undecided)"},
	{CodeCodeUnparsable, CodeCheck, "a source file has syntax errors, so its symbols cannot be checked (undecided)"},
	{CodeCountMismatch, CodeCheck, "a count the summary claims (\"documented all 4 methods\", \"created 3 files\") is more than what is found; evidence names what is missing"},
	{CodeSymbolUnchanged, CodeCheck, "a function, method or type the summary says was added or changed is defined where no change since the base touches it, and the changes never name it"},
	{CodeBehaviourChanged, CodeCheck, "the summary says the work changes no behaviour, but the code (not comments, documents or tests) changed since the base; undecided for a refactor, a qualified claim, or files that cannot be compared"},
	{CodeCountUndecided, CodeCheck, "a count claim cannot be checked: no workspace, no file could be parsed, or what falls short cannot be named (names that match no symbol, fewer symbols found than claimed and all documented) (undecided)"},
	{CodeDocMissing, CodeCheck, "symbols lack doc comments (JSDoc, docstring, Go doc); evidence lists them"},
	{CodeEmptySummary, CodeCheck, "a plugin-using output has an empty summary (light)"},
	{CodeErrorWords, CodeCheck, "the summary reports a failure in words from the policy's errorWords (light)"},
	{CodeFileMissing, CodeCheck, "a file claimed created or modified does not exist"},
	{CodeFileNotDeleted, CodeCheck, "a file claimed deleted still exists"},
	{CodeFileUnreadable, CodeCheck, "a claimed file cannot be read: a device, a FIFO, a directory or over the size limit (undecided)"},
	{CodeGitUnavailable, CodeCheck, "the workspace's git changes cannot be read (a base that does not resolve); claims git would decide stay undecided"},
	{CodeItemsMismatch, CodeCheck, "a plugin result's itemsReturned differs from the items in its data (light)"},
	{CodeJSONInvalid, CodeCheck, "the text is not valid JSON"},
	{CodeLengthOutOfRange, CodeCheck, "the text is shorter or longer than the limits in characters or words"},
	{CodeLinesMismatch, CodeCheck, "a created file's line count differs from the claimed linesCount beyond the tolerance"},
	{CodeNegatedMatch, CodeCheck, "a negated check (not: true) matched"},
	{CodeNoChange, CodeCheck, "a file claimed created or modified has no change since the base (undecided without a base)"},
	{CodeNoSymbols, CodeCheck, "a doc-comment check found no symbols to check (undecided)"},
	{CodeNoWorkspace, CodeCheck, "the check needs a workspace and the request has none (undecided)"},
	{CodePathOutsideWorkspace, CodeCheck, "a claimed path leads outside the workspace (.., absolute, or a symlink out)"},
	{CodePatternNotFound, CodeCheck, "the regular expression does not match the text"},
	{CodePluginError, CodeCheck, "a plugin result has status error (light)"},
	{CodeRegionOutsideFile, CodeCheck, "a claimed edited region lies past the end of its file"},
	{CodeRegionUnchanged, CodeCheck, "a claimed edited region is not touched by any change git shows"},
	{CodeSchemaViolation, CodeCheck, "the JSON does not satisfy the schema; evidence names each violation's path"},
	{CodeSectionMissing, CodeCheck, "required Markdown sections are missing; evidence lists them"},
	{CodeSizeMismatch, CodeCheck, "a created file's size differs from the claimed sizeBytes beyond the tolerance"},
	{CodeSymbolMissing, CodeCheck, "the file does not define the symbol; or a symbol the summary says was added is defined in no parsed file and in no line the changes add"},
	{CodeSymbolUnresolved, CodeCheck, "the task names symbols that no parsed file defines, so what they stand for cannot be checked (undecided)"},
	{CodeTargetMissing, CodeCheck, "the file a check targets does not exist in the workspace"},
	{CodeTargetUnreadable, CodeCheck, "the file a check targets cannot be read: outside the workspace, not a regular file, or too large (undecided)"},
	{CodeTestClaimContradicted, CodeCheck, "the output claims the tests passed, but the last run of a test command failed (exit code or runner output)"},
	{CodeTestStale, CodeCheck, "the output claims the tests passed, but a test file changed after the last test run (fails), or another source file did (undecided)"},
	{CodeGitClaimContradicted, CodeCheck, "the output claims it pushed, committed, merged or left a clean working tree, but the last such git command in the trace failed or git status says otherwise"},
	{CodeGitNotRun, CodeCheck, "the output claims a git operation the trace shows no command for (undecided: it may have run elsewhere)"},
	{CodeVerifyNotRun, CodeCheck, "the output says it ran or verified its work (tested, verified it works, it now raises X), but nothing ran after its last change to a source file (undecided when a task handed to another agent may have run it)"},
	{CodeVerifyContradicted, CodeCheck, "the output quotes what a run showed (it now raises X, prints Y), but no run after the last change printed it and the last of them failed with another exception"},
	{CodeTestNotRun, CodeCheck, "the output claims the tests passed, but no test run is in the evidence: fails with a trace that ran nothing but reads, edits and inspections; undecided without a trace, or when other commands ran that may have run the tests"},
	{CodeTestInconclusive, CodeCheck, "the last run of a test command shows nothing of the tests either way: it timed out or was killed, its runner is not installed, or it found no test to run (undecided)"},
	{CodeTextMissing, CodeCheck, "the required text is not in the output"},
	{CodeTextPresent, CodeCheck, "text that must not appear is in the output"},
	{CodeToolNotCalled, CodeCheck, "the required tool does not appear in the trace (or, without a trace, in toolCalls)"},
	{CodeMentionsRefuted, CodeCheck, "mentions in the output (files, packages, symbols) that the evidence contradicts: a file shown absent from the workspace, a package missing from the manifests read, a symbol missing from the file it was said to be in; the score is the share of the decided mentions found"},
	{CodeUnsupportedClaim, CodeCheck, "statements of a synthesis or a moderator's summary whose figures, dates, names or quotes no agent output or participant says: everything such a text rests on is given, so what none of them says was made up; evidence gives each sentence"},
	{CodeStatementsUnfound, CodeCheck, "statements of the answer that no source, tool output or agent output holds, and none contradicts: unverified, never counted against the answer (undecided)"},
	{CodeSourceContradicted, CodeCheck, "statements of the answer that a source contradicts: another number, date or name for the same thing; evidence quotes each sentence and what the source says"},
	{CodeJudgeRefuted, CodeCheck, "the judge, asked about a claim no rule could decide, found the evidence shows it false; its reason says why"},
	{CodeSymbolStillDefined, CodeCheck, "a function, method or type the summary says was removed is still defined in the file it was removed from"},
	{CodeRenameNotDone, CodeCheck, "the summary says a function or file was renamed, but the old name is still defined (or the file still there) and the new one is not"},
	{CodeUnchangedClaimFalse, CodeCheck, "the summary says a file or function was left unchanged, but git shows a change to it since the base (undecided: such claims are often qualified)"},
	{CodeContradiction, CodeCheck, "two outputs contradict each other (one entity with different numbers, a file created by one and deleted by another, opposite statements); both sources are named"},
	{CodeSubgoalUnknown, CodeCheck, "a plan names a subgoal id in dependsOn or phases that no subgoal has"},
	{CodeDependencyCycle, CodeCheck, "a plan's dependencies form a cycle; evidence names it"},
	{CodeParallelDependency, CodeCheck, "members of one parallel phase depend on each other"},
	{CodeAgentUnknown, CodeCheck, "a subgoal is routed to an agent missing from context.agents"},
	{CodeAgentIncapable, CodeCheck, "a subgoal's agent lacks a capability the subgoal requires"},
	{CodeTopicUncovered, CodeCheck, "a topic the policy's requiredTopics names (testing, error handling...) is covered by no subgoal"},
	{CodeOutputUnused, CodeCheck, "agent outputs that the synthesis never draws on; evidence names them"},
	{CodePointDropped, CodeCheck, "points raised by several participants, or marked as decisions, that the moderator's summary drops"},
	{CodeSummaryTruncated, CodeCheck, "the agent's summary is missing or stops mid-sentence"},
	{CodeFormatInvalid, CodeCheck, "the agent result breaks its format: selfAssessment.confidence outside [0,1], toolCalls not a list of names, metadata not an object"},
	{CodeAnalyzerFailed, CodeWarning, "an analyzer could not run; the parts it decides stay undecided"},
	{CodeJudgeDisagree, CodeWarning, "the judges disagree beyond the policy's limit; a human should review"},
	{CodeJudgeFailed, CodeWarning, "the judge failed (timeout, refusal, malformed reply); what it would decide stays undecided"},
	{CodeLastAttempt, CodeWarning, "the output failed on its last allowed attempt; retries are exhausted"},
	{CodeMustUndecided, CodeWarning, "a must-pass criterion could not be decided; the gate fails closed"},
	{CodeNoJudge, CodeWarning, "criteria or dimensions need a judge and none is configured; they stay undecided"},
	{CodeNothingDecided, CodeWarning, "no claim, criterion or dimension could be decided: the verdict is unverified"},
	{CodeClaimsUnverified, CodeWarning, "claims of the output could not be checked either way: the verdict is unverified (see the policy's onUnverified)"},
	{CodePromptInjection, CodeWarning, "the output contains instructions aimed at the verifier; it cannot pass and needs review"},
	{CodeInjectionInEvidence, CodeWarning, "a tool output in the trace holds text shaped like instructions to a verifier; it is evidence, fenced as data wherever a judge reads it, and never decides the verdict"},
	{CodeTooManyRefuted, CodeWarning, "more mentions are refuted than the policy's maxRefuted: the output is sent back"},
	{CodeUnclaimedChange, CodeWarning, "files changed that the output never mentions"},
	{CodeUnverifiedFile, CodeWarning, "the answer mentions a file that no read, listing or write in the trace shows and the workspace does not hold"},
	{CodeUnverifiedPackage, CodeWarning, "the answer mentions a package that no manifest or import the agent saw names"},
	{CodeUnverifiedSymbol, CodeWarning, "the answer mentions a class, function or method defined in no parsed file and shown in no read"},
	{CodeUnverifiedURL, CodeWarning, "the answer cites a URL that appears in no source or tool output"},
	{CodeFallBack, CodeWarning, "the synthesis failed on its last allowed attempt: use the agent outputs it was built from instead"},
	{CodeSameModelJudge, CodeWarning, "the judge is the executor's own model (judge.allowSameModel): confidence is capped at 0.5"},
	{CodeJudgeBypassed, CodeWarning, "the policy's bypass rules skipped the judge (a cheap task, or one nothing depends on); what it would decide stays undecided"},
	{CodeJudgeBudget, CodeWarning, "judging could cost more than the policy allows (judge.budgetUsd, or judge.maxCostShare of the task's executor.costUsd) and the call was not made; what it would decide stays undecided"},
	{CodeLowConfidence, CodeWarning, "the report's confidence is below the policy's reviewBelow: too little was decided, or on too weak evidence; a person should review the verdict"},
	{string(ErrCriterion), CodeError, "a criterion's check does not compile: bad regex, schema or CEL, unknown type or parameter"},
	{string(ErrInternal), CodeError, "a fault of vouch itself"},
	{string(ErrInvalid), CodeError, "a value out of range, outside its enumeration or inconsistent (editedRegion.start > end)"},
	{string(ErrMissing), CodeError, "a required field is absent (output.summary)"},
	{string(ErrWiden), CodeError, "a request's task.policy tried to widen the policy in force"},
	{string(ErrSyntax), CodeError, "malformed JSON or YAML; line and column are given"},
	{string(ErrTooLarge), CodeError, "the input is over the size limit and was not decoded"},
	{string(ErrUnknownField), CodeError, "a key the contract does not have"},
	{string(ErrUsage), CodeError, "a command was called wrongly"},
	{string(ErrType), CodeError, "a value of the wrong JSON type"},
}

// Codes returns the catalogue of every check, warning and error code with
// its meaning, sorted by kind and code.
func Codes() []CodeInfo {
	out := slices.Clone(catalogue)
	rank := map[CodeKind]int{CodeCheck: 0, CodeWarning: 1, CodeError: 2}
	slices.SortFunc(out, func(a, b CodeInfo) int {
		if d := rank[a.Kind] - rank[b.Kind]; d != 0 {
			return d
		}
		return strings.Compare(a.Code, b.Code)
	})
	return out
}

// LookupCode returns the catalogue entry for code.
func LookupCode(code string) (CodeInfo, bool) {
	for _, c := range catalogue {
		if c.Code == code {
			return c, true
		}
	}
	return CodeInfo{}, false
}
