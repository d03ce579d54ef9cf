package ops

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// protocolConsts returns the values of the constants of package ops whose
// type is an instance of typeName (Method or Notification).
func protocolConsts(t *testing.T, typeName string) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				var x ast.Expr
				switch tt := vs.Type.(type) {
				case *ast.IndexExpr:
					x = tt.X
				case *ast.IndexListExpr:
					x = tt.X
				default:
					continue
				}
				if id, ok := x.(*ast.Ident); !ok || id.Name != typeName {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok {
						t.Fatalf("a %s constant is not a string literal", typeName)
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, s)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// Methods and Notifications list every constant of their types once, so
// that the language server registers, and the extension is generated
// from, all of them.
func TestProtocolListsEveryConstant(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typeName string
		specs    []Spec
		result   bool
	}{
		{"Method", Methods(), true},
		{"Notification", Notifications(), false},
	}
	for _, tt := range tests {
		t.Run(tt.typeName, func(t *testing.T) {
			t.Parallel()
			names := map[string]bool{}
			for _, s := range tt.specs {
				if names[s.Name] {
					t.Errorf("%s is listed twice", s.Name)
				}
				names[s.Name] = true
				if !strings.HasPrefix(s.Name, "ctxls/") {
					t.Errorf("%s is not under ctxls/", s.Name)
				}
				if (s.Result != nil) != tt.result || s.Params == nil {
					t.Errorf("%s: params %v, result %v", s.Name, s.Params, s.Result)
				}
			}
			want := protocolConsts(t, tt.typeName)
			if len(want) == 0 {
				t.Fatalf("no %s constants found", tt.typeName)
			}
			if got := slices.Sorted(maps.Keys(names)); !slices.Equal(got, want) {
				t.Errorf("listed\n%v\ndeclared\n%v", got, want)
			}
		})
	}
}
