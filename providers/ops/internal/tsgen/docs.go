package tsgen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
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

// parseDocs reads the docs of the struct types of one package.
func parseDocs(root, module, pkgPath string) map[string]map[string]string {
	out := map[string]map[string]string{}
	rel, ok := strings.CutPrefix(pkgPath, module)
	if !ok {
		return out
	}
	dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			continue
		}
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
