// Package tsgen writes TypeScript declarations of Go types as
// encoding/json encodes them, so that the VS Code extension's types of the
// server's responses are made from the Go types instead of copied by hand.
package tsgen

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Root is a type to declare under a name of its own.
type Root struct {
	Name string
	Type reflect.Type
	Doc  string
}

// Method is a JSON-RPC method or notification to declare in a map from
// its name to its types.
type Method struct {
	Name   string
	Params reflect.Type
	// Result is nil for a notification.
	Result reflect.Type
	Doc    string
}

// Config says what to generate.
type Config struct {
	// Header is written first, as it is.
	Header string
	// Roots are declared in order, with the named types they use.
	Roots []Root
	// Requests, when set, are declared last as the interface RequestMap:
	// each method's name to its params and result, a result that may be
	// nil (a pointer) with "| null". The types they reach are declared
	// under their root's name or their own.
	Requests []Method
	// Notifications, when set, are declared as NotificationMap: each
	// notification's name to its params.
	Notifications []Method
	// Names renames Go types ("package.Name" of the declaring package's
	// last path element) whose name would be ambiguous or unclear.
	Names map[string]string
	// Literal gives the TypeScript of types that encode themselves, by
	// "package.Name".
	Literal map[string]string
	// Docs, when set, returns the doc comment of a named type (field "")
	// or of one of its fields, by the type's package path and name.
	Docs func(pkgPath, typeName, field string) string
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	marshaler     = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

type generator struct {
	cfg   Config
	out   bytes.Buffer
	names map[reflect.Type]string // declared or being declared
	owner map[string]reflect.Type // TypeScript name → the type declared under it
	queue []reflect.Type
	used  map[string]bool // keys of Config.Names and Config.Literal consulted
	err   error
}

// Generate returns the declarations of cfg.Roots and of every named struct
// type they reach.
func Generate(cfg Config) ([]byte, error) {
	g := &generator{cfg: cfg, names: map[reflect.Type]string{}, owner: map[string]reflect.Type{}, used: map[string]bool{}}
	g.out.WriteString(cfg.Header)
	g.out.WriteString(`
/** Shape of every list result: items and warnings, never null. */
export interface ListResult<T> {
  items: T[];
  warnings: Warning[];
}
`)
	for _, r := range cfg.Roots {
		g.declareRoot(r)
	}
	methodMaps := g.methodMaps()
	for len(g.queue) > 0 {
		t := g.queue[0]
		g.queue = g.queue[1:]
		g.declareStruct(g.names[t], t, g.doc(t, ""))
	}
	g.out.WriteString(methodMaps)
	// A key that names no type reached (a package renamed, a type gone)
	// would silently change the generated names.
	for _, m := range []map[string]string{cfg.Names, cfg.Literal} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !g.used[k] {
				g.fail("tsgen: %s in Config names no type the roots or methods reach", k)
			}
		}
	}
	if g.err != nil {
		return nil, g.err
	}
	return g.out.Bytes(), nil
}

// methodMaps returns the declarations of RequestMap and NotificationMap,
// queueing the types they reach.
func (g *generator) methodMaps() string {
	var b strings.Builder
	if len(g.cfg.Requests) > 0 {
		b.WriteString("\n/** The custom requests of the server: the params and the result of each method. */\n")
		b.WriteString("export interface RequestMap {\n")
		for _, m := range g.cfg.Requests {
			if m.Result == nil {
				g.fail("tsgen: request %s has no result type", m.Name)
				continue
			}
			result := g.ts(m.Result)
			if m.Result.Kind() == reflect.Pointer {
				result += " | null"
			}
			b.WriteString(doc(m.Doc, "  "))
			fmt.Fprintf(&b, "  %s: { params: %s; result: %s };\n", quote(m.Name), g.ts(m.Params), result)
		}
		b.WriteString("}\n")
		b.WriteString(`
/** The name of a custom request. */
export type RequestMethod = keyof RequestMap;

/** The params of a custom request. */
export type RequestParams<M extends RequestMethod> = RequestMap[M]['params'];

/** The result of a custom request. */
export type RequestResult<M extends RequestMethod> = RequestMap[M]['result'];
`)
	}
	if len(g.cfg.Notifications) > 0 {
		b.WriteString("\n/** The notifications the server sends: the params of each. */\n")
		b.WriteString("export interface NotificationMap {\n")
		for _, m := range g.cfg.Notifications {
			b.WriteString(doc(m.Doc, "  "))
			fmt.Fprintf(&b, "  %s: %s;\n", quote(m.Name), g.ts(m.Params))
		}
		b.WriteString("}\n")
		b.WriteString("\n/** The name of a notification the server sends. */\nexport type NotificationMethod = keyof NotificationMap;\n")
	}
	return b.String()
}

// quote returns s as a TypeScript string literal.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

func (g *generator) fail(format string, args ...any) {
	if g.err == nil {
		g.err = fmt.Errorf(format, args...)
	}
}

func qualified(t reflect.Type) string {
	pkg := t.PkgPath()
	return pkg[strings.LastIndexByte(pkg, '/')+1:] + "." + t.Name()
}

// claim records that name declares t, failing on a second type.
func (g *generator) claim(name string, t reflect.Type) {
	if o, ok := g.owner[name]; ok && o != t {
		g.fail("tsgen: %s and %s both become %s; add one to Config.Names", qualified(o), qualified(t), name)
	}
	g.owner[name] = t
}

func (g *generator) declareRoot(r Root) {
	t := r.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct && t.Name() != "" && !isList(t) {
		if n, ok := g.names[t]; ok {
			// Declared already under another name: an alias.
			g.out.WriteString(doc(r.Doc, ""))
			fmt.Fprintf(&g.out, "export type %s = %s;\n", r.Name, n)
			return
		}
		g.names[t] = r.Name
		g.used[qualified(t)] = true // a root's own name stands for any rename
		g.claim(r.Name, t)
		d := r.Doc
		if d == "" {
			d = g.doc(t, "")
		}
		g.declareStruct(r.Name, t, d)
		return
	}
	g.out.WriteString("\n" + doc(r.Doc, ""))
	fmt.Fprintf(&g.out, "export type %s = %s;\n", r.Name, g.ts(r.Type))
	if _, ok := g.names[t]; !ok && isList(t) {
		// Later uses of the list type read as the root's name.
		g.names[t] = r.Name
	}
}

func isList(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && strings.HasPrefix(t.Name(), "List[")
}

func doc(text, indent string) string {
	if text == "" {
		return ""
	}
	return indent + "/** " + strings.ReplaceAll(text, "*/", "*\\/") + " */\n"
}

// field is one encoded field of a struct.
type field struct {
	name     string
	ts       string
	optional bool
	depth    int
	doc      string
}

func (g *generator) declareStruct(name string, t reflect.Type, docText string) {
	fields := g.fields(t, 0, nil)
	g.out.WriteString("\n" + doc(docText, ""))
	if len(fields) == 0 {
		// An interface without members would accept any value.
		fmt.Fprintf(&g.out, "export type %s = Record<string, never>;\n", name)
		return
	}
	fmt.Fprintf(&g.out, "export interface %s {\n", name)
	for _, f := range fields {
		opt := ""
		if f.optional {
			opt = "?"
		}
		g.out.WriteString(doc(f.doc, "  "))
		fmt.Fprintf(&g.out, "  %s%s: %s;\n", f.name, opt, f.ts)
	}
	g.out.WriteString("}\n")
}

// fields returns the encoded fields of t as encoding/json finds them:
// embedded structs without a name are flattened, and of two fields with
// the same name the shallower one wins.
func (g *generator) fields(t reflect.Type, depth int, seen []reflect.Type) []field {
	if slices.Contains(seen, t) {
		return nil
	}
	seen = append(seen, t)
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = merge(out, g.fields(et, depth+1, seen))
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		omit := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		ts := g.ts(ft)
		if ft.Kind() == reflect.Pointer && !omit && !g.literal(ft.Elem()) {
			ts += " | null"
		}
		out = merge(out, []field{{name: name, ts: ts, optional: omit, depth: depth, doc: g.doc(t, sf.Name)}})
	}
	return out
}

// merge adds fields to out; a shallower field hides a deeper one of the
// same name.
func merge(out, add []field) []field {
	for _, f := range add {
		i := slices.IndexFunc(out, func(o field) bool { return o.name == f.name })
		switch {
		case i < 0:
			out = append(out, f)
		case f.depth < out[i].depth:
			out[i] = f
		}
	}
	return out
}

// doc returns the doc comment of a field of t, or of t itself for "".
func (g *generator) doc(t reflect.Type, field string) string {
	if g.cfg.Docs == nil || t.Name() == "" {
		return ""
	}
	name := t.Name()
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	return g.cfg.Docs(t.PkgPath(), name, field)
}

// literal reports whether t encodes itself as a string.
func (g *generator) literal(t reflect.Type) bool {
	_, ok := g.cfg.Literal[qualified(t)]
	if ok {
		g.used[qualified(t)] = true
	}
	return ok
}

// ts returns the TypeScript of t.
func (g *generator) ts(t reflect.Type) string {
	if t.Name() != "" && t.PkgPath() != "" {
		if lit, ok := g.cfg.Literal[qualified(t)]; ok {
			g.used[qualified(t)] = true
			return lit
		}
	}
	switch {
	case t == timeType:
		return "string"
	case t == rawType:
		return "unknown"
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Struct &&
		(t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)):
		return "string"
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Struct && t.Implements(marshaler):
		g.fail("tsgen: %s encodes itself; give its TypeScript in Config.Literal", qualified(t))
		return "unknown"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.ts(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Interface:
		return "unknown"
	case reflect.Slice, reflect.Array:
		return g.ts(t.Elem()) + "[]"
	case reflect.Map:
		return "Record<string, " + g.ts(t.Elem()) + ">"
	case reflect.Struct:
		if isList(t) {
			if n, ok := g.names[t]; ok {
				return n
			}
			items, _ := t.FieldByName("Items")
			return "ListResult<" + g.ts(items.Type.Elem()) + ">"
		}
		if t.Implements(marshaler) || t.Implements(textMarshaler) {
			g.fail("tsgen: %s encodes itself; give its TypeScript in Config.Literal", qualified(t))
			return "unknown"
		}
		if t.Name() == "" {
			var b strings.Builder
			b.WriteString("{ ")
			for _, f := range g.fields(t, 0, nil) {
				opt := ""
				if f.optional {
					opt = "?"
				}
				fmt.Fprintf(&b, "%s%s: %s; ", f.name, opt, f.ts)
			}
			b.WriteString("}")
			return b.String()
		}
		if n, ok := g.names[t]; ok {
			return n
		}
		n := t.Name()
		if r, ok := g.cfg.Names[qualified(t)]; ok {
			g.used[qualified(t)] = true
			n = r
		}
		g.claim(n, t)
		g.names[t] = n
		g.queue = append(g.queue, t)
		return n
	}
	g.fail("tsgen: no TypeScript for %s", t)
	return "unknown"
}
