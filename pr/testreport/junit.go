package testreport

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxDepth bounds the nesting of JUnit elements.
const maxDepth = 64

// ParseJUnit reads a JUnit XML report: a <testsuites> element holding
// <testsuite> elements (nested suites too), or a lone <testsuite>, whose
// <testcase> elements carry their outcome as a <failure>, <error> or
// <skipped> child; a case with none passed. Surefire's <flakyFailure> and
// <rerunFailure> under a case that then passed leave it passed. A suite
// whose failures or errors attribute counts more failed cases than it
// holds is a problem of the report: its count is trusted over its cases.
//
// The XML is read strictly: a document type declaration is skipped
// unread, so an entity it declares is unknown and a reference to it is an
// error, as is any malformed markup. Input past [MaxBytes], nesting deeper
// than 64 elements or more than [MaxCases] cases are errors too; every
// error wraps [ErrFormat].
func ParseJUnit(r io.Reader) (*Report, error) {
	d := xml.NewDecoder(limitReader(r))
	d.Strict = true
	// Only the five predefined entities: no Entity map, so &foo; fails.
	rep := &Report{Format: FormatJUnit}
	type suite struct {
		name     string
		claimed  int // failures + errors its attributes count
		failed   int // failed cases seen in it
		hasCount bool
	}
	var (
		stack   []string
		suites  []*suite
		cur     *Case // the case being read
		text    strings.Builder
		inFail  int // depth of the failure/error/skipped element being read, 0 when none
		seenDoc bool
		seen    = map[string]bool{}
	)
	errf := func(format string, args ...any) error {
		return fmt.Errorf("%w: JUnit XML: %s", ErrFormat, fmt.Sprintf(format, args...))
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, errTooLarge) {
				return nil, err
			}
			return nil, errf("%v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= maxDepth {
				return nil, errf("elements nested deeper than %d", maxDepth)
			}
			name := t.Name.Local
			if len(stack) == 0 {
				if seenDoc {
					return nil, errf("more than one root element")
				}
				seenDoc = true
				if name != "testsuites" && name != "testsuite" {
					return nil, errf("the root element is <%s>, not <testsuites> or <testsuite>", clean(name, 64))
				}
			}
			stack = append(stack, name)
			switch {
			case name == "testsuite":
				s := &suite{name: clean(attr(t, "name"), maxName)}
				for _, a := range []string{"failures", "errors"} {
					if v := attr(t, a); v != "" {
						n, err := strconv.Atoi(strings.TrimSpace(v))
						if err != nil || n < 0 {
							return nil, errf("testsuite %q: %s=%q is not a count", s.name, a, clean(v, 32))
						}
						s.claimed += n
						s.hasCount = true
					}
				}
				suites = append(suites, s)
				if s.name != "" && !seen[s.name] {
					seen[s.name] = true
					rep.Packages = append(rep.Packages, s.name)
				}
			case name == "testcase":
				if cur != nil {
					return nil, errf("a testcase inside a testcase")
				}
				if len(rep.Cases) >= MaxCases {
					return nil, errf("more than %d test cases", MaxCases)
				}
				sname := ""
				if len(suites) > 0 {
					sname = suites[len(suites)-1].name
				}
				if cls := clean(attr(t, "classname"), maxName); cls != "" && cls != sname {
					if sname != "" {
						sname += " "
					}
					sname += cls
				}
				cur = &Case{Suite: sname, Name: clean(attr(t, "name"), maxName), Status: Pass}
			case cur != nil && inFail == 0 && len(stack) == depthOfCase(stack)+1:
				switch name {
				case "failure", "error":
					cur.Status = Fail
					inFail = len(stack)
					text.Reset()
					text.WriteString(attr(t, "message"))
				case "skipped":
					if cur.Status != Fail {
						cur.Status = Skip
					}
					inFail = len(stack)
					text.Reset()
					text.WriteString(attr(t, "message"))
				}
			}
		case xml.CharData:
			if inFail > 0 && text.Len() < 4*maxMessage {
				if text.Len() > 0 {
					text.WriteByte('\n')
				}
				text.Write(t)
			}
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, errf("an end tag without a start")
			}
			depth := len(stack)
			stack = stack[:depth-1]
			switch {
			case inFail == depth:
				inFail = 0
				if cur != nil && (cur.Status == Fail || cur.Status == Skip) && cur.Message == "" {
					cur.Message = cleanBlock(text.String(), maxMessage)
				}
			case t.Name.Local == "testcase" && cur != nil:
				if cur.Status == Fail && len(suites) > 0 {
					suites[len(suites)-1].failed++
				}
				rep.Cases = append(rep.Cases, *cur)
				cur = nil
			case t.Name.Local == "testsuite" && len(suites) > 0:
				s := suites[len(suites)-1]
				suites = suites[:len(suites)-1]
				if s.hasCount && s.claimed > s.failed {
					rep.Problems = append(rep.Problems, fmt.Sprintf("suite %q counts %d failures and errors, but only %d of its test cases failed", s.name, s.claimed, s.failed))
				}
				if len(suites) > 0 {
					suites[len(suites)-1].failed += s.failed
				}
			}
		case xml.Directive, xml.ProcInst, xml.Comment:
			// A <!DOCTYPE ...> is skipped unread: its entities stay
			// undeclared.
		}
	}
	if !seenDoc {
		return nil, errf("no <testsuites> or <testsuite> element")
	}
	if len(stack) > 0 {
		return nil, errf("the document ends inside <%s>", clean(stack[len(stack)-1], 64))
	}
	return rep, nil
}

// depthOfCase returns the depth of the innermost testcase element on the
// stack, or -1.
func depthOfCase(stack []string) int {
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i] == "testcase" {
			return i + 1
		}
	}
	return -1
}

// attr returns the value of the attribute named name (without a
// namespace), or "".
func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value
		}
	}
	return ""
}
