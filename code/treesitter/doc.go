// Package treesitter parses TypeScript, JavaScript and Python for package
// code, with the tree-sitter grammars. Import it for its side effect:
//
//	import _ "github.com/vouchgate/vouch/code/treesitter"
//
// Its init function registers parsers for code.LangTypeScript (.ts, .mts,
// .cts with the TypeScript grammar, .tsx with the TSX grammar),
// code.LangJavaScript (.js, .jsx, .mjs, .cjs; the grammar includes JSX)
// and code.LangPython (.py, .pyi). The grammars are C code, so the package
// needs cgo; built with CGO_ENABLED=0 it registers nothing, [Available] is
// false and those languages have no parser (code.ErrUnsupported).
//
// The parsers are safe for concurrent use: tree-sitter parsers are not, so
// each language keeps a bounded free list of them, and every parse takes
// one for its duration. Trees are closed as soon as the symbols are
// extracted; nothing from C outlives a call except the idle parsers.
//
// # TypeScript and JavaScript
//
// Symbols are the top-level declarations, those inside namespaces and
// ambient modules, and the members of classes:
//
//   - function declarations, generator functions and overload signatures
//     (declare function f(): void): code.KindFunction;
//   - classes, abstract classes and class expressions under export default:
//     code.KindClass;
//   - methods, getters, setters, constructors, abstract methods, method
//     overload signatures and class fields initialised with a function
//     (handle = () => {}): code.KindMethod, with Receiver the class name;
//   - interfaces: code.KindInterface; type aliases and enums: code.KindType;
//   - a const, let or var whose value is an arrow function, a function
//     expression, or a call with one as its first argument (memo(() => ...)),
//     possibly in parentheses or under "as"/"satisfies"; and
//     exports.f = function () {}: code.KindConst.
//
// An anonymous export default is named "default". A symbol is exported
// when it is under "export", is named in an export clause without a
// source (export { a, b as c }), by export default name, or by CommonJS
// module.exports = { a, b }, module.exports = a or exports.a = a. Inside a
// namespace it must also be under "export", and the namespace exported; in
// a declare module block every declaration is exported. A method is
// exported when its class is and the method is neither "private" nor a
// #private name.
//
// The doc comment follows tsc, so what counts is what an editor shows:
//
//   - It is a JSDoc block: /** ... */ (not /**/). A /* ... */ block or a //
//     line comment is never a doc comment.
//   - It comes before the declaration, or before the "export" statement
//     wrapping it, or before the decorators preceding it (/** doc */ then
//     @Input() then the method). A comment between a decorator and the
//     declaration is not a doc comment, as for tsc.
//   - Only comments and white space may separate it from the declaration:
//     blank lines do not break the association, and neither do other
//     comments (a // eslint-disable line between the JSDoc block and the
//     function). Another statement or member does.
//   - It must start on a line of its own as far as code goes: a comment on
//     the same line as the end of the previous statement (x(); /** c */)
//     trails that statement and documents nothing, as in tsc.
//   - When several JSDoc blocks qualify, the nearest one is the doc
//     comment.
//   - In a declaration of several variables (const a = () => 1, b = ...)
//     no declarator gets the statement's JSDoc, as in tsc.
//
// # Python
//
// Symbols are the module-level functions (code.KindFunction, async ones
// too), classes (code.KindClass), methods (functions defined in a class
// body: code.KindMethod, Receiver the class name, "Outer.Inner" for nested
// classes) and module-level names assigned a lambda (code.KindConst). A
// decorated definition starts at its first decorator. The doc comment is
// the docstring: the first statement of the body, when it is a string
// literal (implicitly concatenated literals too, f-strings and bytes not).
// DocStart and DocEnd are the lines of that string, inside the declaration.
// A name is exported when __all__ lists it (a list or tuple of string
// literals, += extensions included) or, without __all__, when it does not
// start with "_"; a method is exported when its class is and its name does
// not start with "_" or is a dunder (__init__).
//
// # Syntax errors
//
// tree-sitter recovers from errors. When a tree has an error node, Parse
// returns the symbols it could recover and a *code.SyntaxError for the
// first error in the file.
package treesitter
