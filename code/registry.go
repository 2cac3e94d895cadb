package code

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// knownExts maps the extensions of the languages vouch knows to their
// language, whether or not a parser for it is registered in this build.
var knownExts = map[string]string{
	".go":  LangGo,
	".ts":  LangTypeScript,
	".tsx": LangTypeScript,
	".mts": LangTypeScript,
	".cts": LangTypeScript,
	".js":  LangJavaScript,
	".jsx": LangJavaScript,
	".mjs": LangJavaScript,
	".cjs": LangJavaScript,
	".py":  LangPython,
	".pyi": LangPython,
}

var registry = struct {
	sync.RWMutex
	parsers map[string]Parser // by language
	exts    map[string]string // extension -> language, for registered parsers
}{
	parsers: map[string]Parser{},
	exts:    map[string]string{},
}

// Register makes p the parser of lang for files with the given extensions
// (".ts", with the dot; matched case-insensitively). It is meant to be
// called from init functions, and panics on an empty language, a nil
// parser, no extensions, an extension without a leading dot, a language
// registered twice or an extension already claimed by another language.
func Register(lang string, exts []string, p Parser) {
	if lang == "" {
		panic("code: Register with an empty language")
	}
	if p == nil {
		panic("code: Register " + lang + " with a nil parser")
	}
	if len(exts) == 0 {
		panic("code: Register " + lang + " without extensions")
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.parsers[lang]; dup {
		panic("code: Register called twice for " + lang)
	}
	norm := make([]string, len(exts))
	for i, e := range exts {
		e = strings.ToLower(e)
		if len(e) < 2 || e[0] != '.' {
			panic(fmt.Sprintf("code: Register %s: bad extension %q", lang, exts[i]))
		}
		if other, ok := registry.exts[e]; ok && other != lang {
			panic(fmt.Sprintf("code: Register %s: extension %s already belongs to %s", lang, e, other))
		}
		norm[i] = e
	}
	for _, e := range norm {
		registry.exts[e] = lang
	}
	registry.parsers[lang] = p
}

// ForPath returns the language of the file at path, by its extension, and
// the parser registered for that language. ok is false when there is no
// parser: then lang is the language the extension belongs to if vouch
// knows it (a .ts file in a build without cgo gives "typescript"), and ""
// otherwise.
func ForPath(path string) (lang string, p Parser, ok bool) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		return "", nil, false
	}
	registry.RLock()
	defer registry.RUnlock()
	lang, found := registry.exts[ext]
	if !found {
		lang = knownExts[ext]
	}
	p = registry.parsers[lang]
	return lang, p, p != nil
}

// Languages returns the languages with a registered parser, sorted.
func Languages() []string {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]string, 0, len(registry.parsers))
	for lang := range registry.parsers {
		out = append(out, lang)
	}
	slices.Sort(out)
	return out
}

// Parse parses src, the contents of the file at path, with the parser
// [ForPath] picks. Without a parser it returns an error wrapping
// [ErrUnsupported]. Otherwise it returns what the parser returns: see
// [Parser].
func Parse(ctx context.Context, path string, src []byte) (*File, error) {
	lang, p, ok := ForPath(path)
	if !ok {
		if lang == "" {
			return nil, fmt.Errorf("code: %s: unknown language: %w", path, ErrUnsupported)
		}
		return nil, fmt.Errorf("code: %s: no %s parser in this build: %w", path, lang, ErrUnsupported)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return p.Parse(ctx, path, src)
}
