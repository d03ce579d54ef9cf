package tsgen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SourceDocs returns the doc comments of the struct types and fields of
// the module rooted at root (the directory of its go.mod, whose module
// path is module), read from the Go sources of each package as it is
// first asked for. A type's doc is under "", a field's under its Go name.
func SourceDocs(root, module string) func(pkgPath, typeName, field string) string {
	cache := map[string]map[string]map[string]string{}
	return func(pkgPath, typeName, field string) string {
		docs, ok := cache[pkgPath]
		if !ok {
			docs = parseDocs(root, module, pkgPath)
			cache[pkgPath] = docs
		}
		return docs[typeName][field]
	}
}

// ConstDocs returns the doc comments of the string constants of one
// package of the module rooted at root, by the constants' values, each
// without the constant's name it starts with.
func ConstDocs(root, module, pkgPath string) map[string]string {
	out := map[string]string{}
	for _, f := range parsePackage(root, module, pkgPath) {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				d := vs.Doc
				if d == nil && len(gd.Specs) == 1 {
					d = gd.Doc
				}
				for i, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING || i >= len(vs.Names) {
						continue
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						continue
					}
					out[s] = withoutName(text(d), vs.Names[i].Name)
				}
			}
		}
	}
	return out
}

// withoutName drops the name a Go doc comment starts with ("MethodX
// lists …", "NotifyY: …"), as the text is read under another name.
func withoutName(doc, name string) string {
	rest, ok := strings.CutPrefix(doc, name)
	if !ok || rest == "" || (rest[0] != ' ' && rest[0] != ':') {
		return doc
	}
	rest = strings.TrimLeft(rest, ": ")
	if rest == "" {
		return ""
	}
	return strings.ToUpper(rest[:1]) + rest[1:]
}

// parsePackage parses the non-test Go files of one package of the module
// rooted at root, with comments; none when the package is elsewhere.
func parsePackage(root, module, pkgPath string) []*ast.File {
	rel, ok := strings.CutPrefix(pkgPath, module)
	if !ok {
		return nil
	}
	dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			continue
		}
		files = append(files, f)
	}
	return files
}

// parseDocs reads the docs of the struct types of one package.
func parseDocs(root, module, pkgPath string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, f := range parsePackage(root, module, pkgPath) {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				fields := map[string]string{}
				typeDoc := ts.Doc
				if typeDoc == nil && len(gd.Specs) == 1 {
					typeDoc = gd.Doc
				}
				fields[""] = text(typeDoc)
				if st, ok := ts.Type.(*ast.StructType); ok {
					for _, fl := range st.Fields.List {
						d := text(fl.Doc)
						if d == "" {
							d = text(fl.Comment)
						}
						for _, n := range fl.Names {
							fields[n.Name] = d
						}
					}
				}
				out[ts.Name.Name] = fields
			}
		}
	}
	return out
}

// text returns a comment group as one paragraph.
func text(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}
