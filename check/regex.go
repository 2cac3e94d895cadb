package check

import "regexp/syntax"

// Limits of a regular expression from a request. Go's RE2 matching takes time linear in
// the text, but also in the size of the compiled program: [a-z ]{1,1000}X
// on 3.5 MB takes some 40 seconds. So a program over MaxRegexProgram is
// refused when the criterion is compiled, and a match whose text length
// times program size is over MaxRegexWork is not tried (undecided).
const (
	MaxRegexProgram = 10_000
	MaxRegexWork    = 400_000_000
)

// RegexProgramSize returns the number of instructions pattern compiles to.
func RegexProgramSize(pattern string) (int, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return 0, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0, err
	}
	return len(prog.Inst), nil
}
