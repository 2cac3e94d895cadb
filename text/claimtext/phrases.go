package claimtext

import "github.com/vouchgate/vouch/text/lex"

// The vocabulary of claim text lives in the word lists of package lex
// (text/lex/words), loaded once into the one lexicon; lexicon.go derives
// claim text's view of each word from them. The sets below are the lists
// claim text consults by value rather than word by word.
var (
	// resultClasses are the action classes that report a test result.
	resultClasses = lex.Named("result-classes").Set()
	// symbolClasses are the noun classes that name code symbols.
	symbolClasses = lex.Named("symbol-classes").Set()
	// docVerbClasses are the action classes a documentation task uses.
	docVerbClasses = lex.Named("doc-verb-classes").Set()
	// docFileExts are the extensions of documentation files.
	docFileExts = lex.Named("doc-file-exts").Set()
	// docStyleByExt is the doc comment style of a source file's extension.
	docStyleByExt = lex.Named("doc-style-by-ext").Values()
	// fileExts are the extensions that make a name a file name.
	fileExts = lex.Named("file-extensions").Words()
)
