// Package grounding checks that what an answer mentions rests on what the
// agent really saw. It extracts the files, packages, symbols and URLs an
// answer mentions (package mention) and looks each up where such a thing
// can really be found: a file in the trace's reads, listings or writes, or
// in the workspace; a symbol defined in a parsed file or shown in a read's
// output; a package in a manifest or an import the agent read; a URL in the
// sources or tool outputs. For a research answer (kind answer), the numbers,
// dates and names of each sentence are held against the sources (package
// support). A bare substring anywhere is not evidence.
//
// Each mention ends up verified, with its evidence, or unverified, with its
// sentence (UNVERIFIED_FILE, UNVERIFIED_PACKAGE, UNVERIFIED_SYMBOL,
// UNVERIFIED_URL). The groundedness dimension is the share verified. With
// no trace, no sources and no workspace there is nothing to ground in, and
// groundedness is not applicable.
//
// The analyzer serves every checkpoint kind, each by its row of one
// profile table (profile.go) rather than by branches on the kind: the texts
// grounded (a plan's subgoals, else the answer), the dimension fed
// (traceability for a synthesis, faithfulness for a moderator's summary,
// else groundedness), whether a plan's mentions of what it will create are
// skipped and nothing it names refuted, whether an answer's claims are held
// against the sources, and the texts a synthesis or a summary was made
// from (the agent outputs, the discussion), in which a mention the ground
// truth does not show must be found.
package grounding
