package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Kind is what a [Type] is.
type Kind int

// The kinds of types the clients know.
const (
	// KindAny is any JSON value.
	KindAny Kind = iota
	// KindString is a JSON string.
	KindString
	// KindInteger is a JSON number without a fraction.
	KindInteger
	// KindNumber is any JSON number.
	KindNumber
	// KindBoolean is true or false.
	KindBoolean
	// KindArray is a JSON array of Elem.
	KindArray
	// KindMap is a JSON object whose members are each an Elem.
	KindMap
	// KindRef names a class or an alias of the model.
	KindRef
	// KindLiteral is one of Values, written in place (a const).
	KindLiteral
	// KindUnion is one of Alts.
	KindUnion
)

// Type is the type of a field, of an array's items or of a map's values.
type Type struct {
	// Kind is what the type is.
	Kind Kind
	// Nullable says that null is a value too.
	Nullable bool
	// Elem is the type of an array's items or a map's values.
	Elem *Type
	// Ref is the name of the class or alias of a KindRef.
	Ref string
	// Values are the JSON values of a KindLiteral.
	Values []any
	// Alts are the types of a KindUnion.
	Alts []*Type
	// DateTime marks a string of format date-time.
	DateTime bool
}

// Field is one member of a class.
type Field struct {
	// JSON is the member's name in JSON.
	JSON string
	// Doc is the schema's description of the member.
	Doc string
	// Type is the member's type.
	Type *Type
	// Required says that the member is always present.
	Required bool
}

// Class is an object schema: a dataclass in Python, an interface in
// TypeScript.
type Class struct {
	// Name is the class's name, the same in every client.
	Name string
	// Doc is the schema's description (and title).
	Doc string
	// Base names the class this one extends (allOf of one $ref), or "".
	Base string
	// Fields are the members, sorted by JSON name.
	Fields []Field
	// Extra says that members other than Fields are allowed
	// (additionalProperties: true beside properties).
	Extra bool
	// Params marks the query parameters of an operation.
	Params bool
}

// Alias is a named enumeration.
type Alias struct {
	// Name is the alias's name, the same in every client.
	Name string
	// Doc is the schema's description.
	Doc string
	// Values are the enumeration's JSON values, in the document's order.
	Values []any
}

// Operation is one route of the API.
type Operation struct {
	// ID is the operation's operationId.
	ID string
	// Method is the HTTP method, upper case.
	Method string
	// Path is the path template (/v1/batches/{id}).
	Path string
}

// Model is what the generator writes: every class, alias and operation
// of the document.
type Model struct {
	// Title and Version are the document's info.
	Title, Version string
	// Classes are sorted by name, every base before its subclasses.
	Classes []*Class
	// Aliases are sorted by name.
	Aliases []*Alias
	// Operations are sorted by operationId.
	Operations []Operation
}

// renames gives a component schema another name in the clients where its
// own would shadow a name every program uses: List (Python's typing) and
// Error (JavaScript's global and Python's exceptions).
var renames = map[string]string{
	"List":  "VerificationList",
	"Error": "ErrorBody",
}

// shadowing are names a $defs schema does not take, for they would
// shadow a builtin of Python or a global of JavaScript: the schema takes
// its component's name before its own (Report's warning: ReportWarning).
var shadowing = map[string]bool{
	"Any": true, "Array": true, "Boolean": true, "Date": true, "Dict": true,
	"Error": true, "Event": true, "Exception": true, "Function": true,
	"Iterator": true, "List": true, "Map": true, "Number": true, "Object": true,
	"Promise": true, "Record": true, "Response": true, "Set": true,
	"String": true, "Symbol": true, "Type": true, "Warning": true,
}

// responseNames names the inline schemas of operations' answers; other
// inline answers are named after their operationId with Response.
var responseNames = map[string]string{
	"getVerification": "StoredReport",
	"getExamples":     "JudgeExamples",
}

// builder turns the document into a [Model].
type builder struct {
	doc     map[string]any
	taken   map[string]bool
	defs    map[string]string // "Component#def" → class or alias name
	classes map[string]*Class
	aliases map[string]*Alias
	err     error
}

// scope is where a schema is read: the component whose $defs a
// "#/$defs/..." reference resolves in.
type scope struct {
	component string
}

// Build reads an OpenAPI 3.1 document and returns its model.
func Build(openapi []byte) (*Model, error) {
	var doc map[string]any
	if err := json.Unmarshal(openapi, &doc); err != nil {
		return nil, fmt.Errorf("reading the OpenAPI document: %w", err)
	}
	b := &builder{doc: doc, taken: map[string]bool{}, defs: map[string]string{},
		classes: map[string]*Class{}, aliases: map[string]*Alias{}}
	schemas := obj(obj(doc["components"])["schemas"])
	names := sortedKeys(schemas)
	for _, n := range names {
		b.taken[componentName(n)] = true
	}
	// Name the $defs of every component first, so that a reference to
	// one resolves whichever component is read first.
	for _, n := range names {
		defs := obj(obj(schemas[n])["$defs"])
		for _, d := range sortedKeys(defs) {
			ds := obj(defs[d])
			if !isClass(ds) && ds["enum"] == nil {
				continue // inlined where it is used
			}
			name := pascal(d)
			if b.taken[name] || shadowing[name] {
				name = componentName(n) + name
			}
			b.taken[name] = true
			b.defs[n+"#"+d] = name
		}
	}
	for _, n := range names {
		s := obj(schemas[n])
		name := componentName(n)
		what := "the " + n + " object of the API"
		switch {
		case isClass(s):
			b.class(name, s, scope{n}, what)
		case s["enum"] != nil:
			b.alias(name, s, what)
		default:
			b.fail("components.schemas.%s: only object and enum schemas can be components", n)
		}
		defs := obj(s["$defs"])
		for _, d := range sortedKeys(defs) {
			if dn, ok := b.defs[n+"#"+d]; ok {
				ds := obj(defs[d])
				what := "the " + d + " schema of " + n
				if isClass(ds) {
					b.class(dn, ds, scope{n}, what)
				} else {
					b.alias(dn, ds, what)
				}
			}
		}
	}
	m := &Model{}
	info := obj(doc["info"])
	m.Title, _ = info["title"].(string)
	m.Version, _ = info["version"].(string)
	paths := obj(doc["paths"])
	for _, p := range sortedKeys(paths) {
		item := obj(paths[p])
		for _, method := range sortedKeys(item) {
			op := obj(item[method])
			id, _ := op["operationId"].(string)
			if id == "" {
				b.fail("%s %s has no operationId", strings.ToUpper(method), p)
				continue
			}
			m.Operations = append(m.Operations, Operation{ID: id, Method: strings.ToUpper(method), Path: p})
			b.operation(id, method, p, op)
		}
	}
	if b.err != nil {
		return nil, b.err
	}
	sort.Slice(m.Operations, func(i, j int) bool { return m.Operations[i].ID < m.Operations[j].ID })
	for _, a := range b.aliases {
		m.Aliases = append(m.Aliases, a)
	}
	sort.Slice(m.Aliases, func(i, j int) bool { return m.Aliases[i].Name < m.Aliases[j].Name })
	m.Classes = orderClasses(b.classes)
	return m, nil
}

// operation adds the classes of an operation's query parameters and of
// its answer when the document gives it inline.
func (b *builder) operation(id, method, path string, op map[string]any) {
	var params []any
	for _, p := range arr(op["parameters"]) {
		p := b.resolveParam(obj(p))
		if p["in"] == "query" {
			params = append(params, p)
		}
	}
	if len(params) > 0 {
		name := b.claim(pascal(id) + "Params")
		c := &Class{Name: name, Params: true,
			Doc: "The query parameters of " + id + " (" + strings.ToUpper(method) + " " + path + "); absent ones take the server's defaults."}
		for _, p := range params {
			p := obj(p)
			pn, _ := p["name"].(string)
			doc, _ := p["description"].(string)
			c.Fields = append(c.Fields, Field{JSON: pn, Doc: doc, Type: b.typeOf(obj(p["schema"]), scope{}, name+pascal(pn), "the "+pn+" parameter of "+id)})
		}
		sortFields(c.Fields)
		b.classes[name] = c
	}
	responses := obj(op["responses"])
	for _, code := range sortedKeys(responses) {
		if !strings.HasPrefix(code, "2") {
			continue
		}
		s := obj(obj(obj(obj(responses[code])["content"])["application/json"])["schema"])
		if s == nil || s["$ref"] != nil || !isClass(s) {
			continue
		}
		name := responseNames[id]
		if name == "" {
			name = pascal(id) + "Response"
		}
		b.class(b.claim(name), s, scope{}, "the answer "+code+" of "+id+" ("+strings.ToUpper(method)+" "+path+")")
	}
}

// resolveParam follows a parameter's $ref into components.parameters.
func (b *builder) resolveParam(p map[string]any) map[string]any {
	ref, _ := p["$ref"].(string)
	if ref == "" {
		return p
	}
	const prefix = "#/components/parameters/"
	if !strings.HasPrefix(ref, prefix) {
		b.fail("unsupported parameter $ref %s", ref)
		return map[string]any{}
	}
	return obj(obj(obj(b.doc["components"])["parameters"])[strings.TrimPrefix(ref, prefix)])
}

// claim reserves a name not taken yet: name, or name with a number.
func (b *builder) claim(name string) string {
	n := name
	for i := 2; b.taken[n]; i++ {
		n = fmt.Sprintf("%s%d", name, i)
	}
	b.taken[n] = true
	return n
}

// class adds the class name for an object schema; origin says where it
// is, in words, documenting a class the schema does not describe.
func (b *builder) class(name string, s map[string]any, sc scope, origin string) {
	c := &Class{Name: name, Doc: describe(s)}
	if c.Doc == "" {
		c.Doc = sentence(origin)
	}
	b.classes[name] = c
	props := map[string]any{}
	required := map[string]bool{}
	for _, part := range arr(s["allOf"]) {
		part := obj(part)
		if ref, _ := part["$ref"].(string); ref != "" && c.Base == "" && len(arr(s["allOf"])) == 1 {
			t := b.ref(ref, sc)
			if t.Kind == KindRef && b.taken[t.Ref] {
				c.Base = t.Ref
				continue
			}
		}
		// Any other allOf: its members are merged into this class.
		part = b.deref(part, sc)
		for k, v := range obj(part["properties"]) {
			props[k] = v
		}
		for _, r := range arr(part["required"]) {
			required[fmt.Sprint(r)] = true
		}
	}
	for k, v := range obj(s["properties"]) {
		props[k] = v
	}
	for _, r := range arr(s["required"]) {
		required[fmt.Sprint(r)] = true
	}
	if ap, ok := s["additionalProperties"].(bool); ok && ap && len(props) > 0 {
		c.Extra = true
	}
	for _, k := range sortedKeys(props) {
		p := obj(props[k])
		c.Fields = append(c.Fields, Field{JSON: k, Doc: describe(p), Type: b.typeOf(p, sc, name+pascal(k), name+"."+k), Required: required[k]})
	}
	sortFields(c.Fields)
}

// alias adds the alias name for an enum schema; origin documents an
// alias the schema does not describe.
func (b *builder) alias(name string, s map[string]any, origin string) {
	doc := describe(s)
	if doc == "" {
		doc = sentence(origin)
	}
	b.aliases[name] = &Alias{Name: name, Doc: doc, Values: arr(s["enum"])}
}

// deref follows a $ref to the schema it names.
func (b *builder) deref(s map[string]any, sc scope) map[string]any {
	ref, _ := s["$ref"].(string)
	switch {
	case ref == "":
		return s
	case strings.HasPrefix(ref, "#/components/schemas/"):
		return obj(obj(obj(b.doc["components"])["schemas"])[strings.TrimPrefix(ref, "#/components/schemas/")])
	case strings.HasPrefix(ref, "#/$defs/"):
		return obj(obj(b.componentSchema(sc)["$defs"])[strings.TrimPrefix(ref, "#/$defs/")])
	}
	b.fail("unsupported $ref %s", ref)
	return map[string]any{}
}

func (b *builder) componentSchema(sc scope) map[string]any {
	return obj(obj(obj(b.doc["components"])["schemas"])[sc.component])
}

// ref returns the type a $ref names.
func (b *builder) ref(ref string, sc scope) *Type {
	switch {
	case strings.HasPrefix(ref, "#/components/schemas/"):
		n := strings.TrimPrefix(ref, "#/components/schemas/")
		if obj(obj(obj(b.doc["components"])["schemas"])[n]) == nil {
			b.fail("unresolved $ref %s", ref)
			return &Type{Kind: KindAny}
		}
		return &Type{Kind: KindRef, Ref: componentName(n)}
	case strings.HasPrefix(ref, "#/$defs/"):
		d := strings.TrimPrefix(ref, "#/$defs/")
		if name, ok := b.defs[sc.component+"#"+d]; ok {
			return &Type{Kind: KindRef, Ref: name}
		}
		ds := obj(obj(b.componentSchema(sc)["$defs"])[d])
		if ds == nil {
			b.fail("unresolved $ref %s in %s", ref, sc.component)
			return &Type{Kind: KindAny}
		}
		return b.typeOf(ds, sc, pascal(d), "the "+d+" schema of "+sc.component)
	}
	b.fail("unsupported $ref %s", ref)
	return &Type{Kind: KindAny}
}

// typeOf returns the type of schema s; hint names a class or alias that
// s makes (an inline object or enum), and origin says where s is (a
// member's path, Metrics.cost, or a phrase, an item of AlertReport.alerts)
// for the documentation of such a class.
func (b *builder) typeOf(s map[string]any, sc scope, hint, origin string) *Type {
	if s == nil {
		return &Type{Kind: KindAny}
	}
	if ref, _ := s["$ref"].(string); ref != "" {
		return b.ref(ref, sc)
	}
	if c, ok := s["const"]; ok {
		return &Type{Kind: KindLiteral, Values: []any{c}}
	}
	if vals := arr(s["enum"]); vals != nil {
		name := b.claim(hint)
		b.alias(name, s, valuesOf(origin))
		t := &Type{Kind: KindRef, Ref: name}
		if slices.Contains(vals, nil) {
			t.Nullable = true
		}
		return t
	}
	if len(arr(s["allOf"])) > 0 || isClass(s) {
		name := b.claim(hint)
		b.class(name, s, sc, origin)
		return &Type{Kind: KindRef, Ref: name}
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts := arr(s[key]); alts != nil {
			u := &Type{Kind: KindUnion}
			for i, a := range alts {
				at := b.typeOf(obj(a), sc, fmt.Sprintf("%s%d", hint, i+1), fmt.Sprintf("alternative %d of %s", i+1, origin))
				if at.Kind == KindAny {
					return &Type{Kind: KindAny}
				}
				u.Alts = append(u.Alts, at)
			}
			return simplify(u)
		}
	}
	var types []string
	switch t := s["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			types = append(types, fmt.Sprint(x))
		}
	}
	nullable := slices.Contains(types, "null")
	types = slices.DeleteFunc(types, func(t string) bool { return t == "null" })
	u := &Type{Kind: KindUnion, Nullable: nullable}
	for _, t := range types {
		u.Alts = append(u.Alts, b.simpleType(t, s, sc, hint, origin))
	}
	if len(u.Alts) == 0 {
		return &Type{Kind: KindAny}
	}
	return simplify(u)
}

// simpleType returns the type of a schema of one JSON type.
func (b *builder) simpleType(t string, s map[string]any, sc scope, hint, origin string) *Type {
	switch t {
	case "string":
		return &Type{Kind: KindString, DateTime: s["format"] == "date-time"}
	case "integer":
		return &Type{Kind: KindInteger}
	case "number":
		return &Type{Kind: KindNumber}
	case "boolean":
		return &Type{Kind: KindBoolean}
	case "array":
		items := obj(s["items"])
		if items == nil {
			return &Type{Kind: KindArray, Elem: &Type{Kind: KindAny}}
		}
		return &Type{Kind: KindArray, Elem: b.typeOf(items, sc, itemName(hint), "an item of "+origin)}
	case "object":
		if ap := obj(s["additionalProperties"]); ap != nil {
			return &Type{Kind: KindMap, Elem: b.typeOf(ap, sc, hint+"Value", "a value of "+origin)}
		}
		return &Type{Kind: KindMap, Elem: &Type{Kind: KindAny}}
	}
	b.fail("unsupported type %q", t)
	return &Type{Kind: KindAny}
}

// valuesOf documents an enumeration found at origin.
func valuesOf(origin string) string {
	return "the values of " + origin
}

// sentence documents a class or alias by its origin: a member's path
// (Metrics.cost) or a phrase (an item of AlertReport.alerts).
func sentence(origin string) string {
	if origin == "" {
		return ""
	}
	if unicode.IsUpper([]rune(origin)[0]) {
		return "The member " + origin + "."
	}
	return strings.ToUpper(origin[:1]) + origin[1:] + "."
}

// simplify returns a union of one type as that type.
func simplify(u *Type) *Type {
	if len(u.Alts) == 1 {
		t := *u.Alts[0]
		t.Nullable = t.Nullable || u.Nullable
		return &t
	}
	return u
}

func (b *builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(format, args...)
	}
}

// isClass reports whether s is an object schema with members (or an
// allOf), which makes a class rather than a map.
func isClass(s map[string]any) bool {
	if len(arr(s["allOf"])) > 0 {
		return true
	}
	if len(obj(s["properties"])) == 0 {
		return false
	}
	switch t := s["type"].(type) {
	case string:
		return t == "object"
	case nil:
		return true
	}
	return false
}

// describe returns a schema's title and description as one text.
func describe(s map[string]any) string {
	title, _ := s["title"].(string)
	desc, _ := s["description"].(string)
	switch {
	case title != "" && desc != "":
		return title + ": " + desc
	case title != "":
		return title
	}
	return desc
}

// componentName is the clients' name of a component schema.
func componentName(n string) string {
	if r, ok := renames[n]; ok {
		return r
	}
	return pascal(n)
}

// itemName names the class of an array's items from the array's own
// name: the singular of its last word (AlertReportAlerts →
// AlertReportAlert), or Item after it.
func itemName(hint string) string {
	switch {
	case strings.HasSuffix(hint, "ies"):
		return strings.TrimSuffix(hint, "ies") + "y"
	case strings.HasSuffix(hint, "ss"):
		return hint + "Item"
	case strings.HasSuffix(hint, "s"):
		return strings.TrimSuffix(hint, "s")
	}
	return hint + "Item"
}

// pascal turns a name (camelCase, snake_case, kebab-case) into
// PascalCase.
func pascal(s string) string {
	var out strings.Builder
	up := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		out.WriteRune(r)
	}
	if out.Len() == 0 || unicode.IsDigit([]rune(out.String())[0]) {
		return "T" + out.String()
	}
	return out.String()
}

// orderClasses sorts the classes by name, each base before the classes
// that extend it.
func orderClasses(classes map[string]*Class) []*Class {
	names := sortedKeys(classes)
	var out []*Class
	done := map[string]bool{}
	var add func(n string)
	add = func(n string) {
		if done[n] {
			return
		}
		done[n] = true
		c := classes[n]
		if c.Base != "" && classes[c.Base] != nil {
			add(c.Base)
		}
		out = append(out, c)
	}
	for _, n := range names {
		add(n)
	}
	return out
}

// sortFields sorts fields by JSON name, required ones first (Python's
// dataclasses need the fields without a default first).
func sortFields(fs []Field) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Required != fs[j].Required {
			return fs[i].Required
		}
		return fs[i].JSON < fs[j].JSON
	})
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }

func arr(v any) []any { a, _ := v.([]any); return a }

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// literal writes a JSON value as a literal of Python or TypeScript (a
// JSON string, number, true/false/null is valid in both but for the
// keywords, which the caller maps).
func literal(v any) string {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return strings.TrimSuffix(sb.String(), "\n")
}
