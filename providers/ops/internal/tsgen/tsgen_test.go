package tsgen

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

type inner struct {
	Name   string `json:"name"`
	Hidden string `json:"hidden"`
}

type outer struct {
	*inner
	Hidden   int             `json:"hidden"`
	When     time.Time       `json:"when"`
	Maybe    *inner          `json:"maybe"`
	Opt      *inner          `json:"opt,omitempty"`
	Raw      json.RawMessage `json:"raw"`
	Tags     []string        `json:"tags,omitempty"`
	Counts   map[string]int  `json:"counts"`
	Skipped  func()          `json:"-"`
	List     List[inner]     `json:"list"`
	Nested   struct{ A int } `json:"nested"`
	Untagged bool
	private  int
}

// List stands for the generic list type of the ops package.
type List[T any] struct {
	Items []T `json:"items"`
}

type selfEncoded struct{}

func (selfEncoded) MarshalJSON() ([]byte, error) { return []byte(`"x"`), nil }

func TestGenerate(t *testing.T) {
	t.Parallel()
	got, err := Generate(Config{Roots: []Root{{Name: "Outer", Type: reflect.TypeFor[outer](), Doc: "An outer."}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"/** An outer. */\nexport interface Outer {\n  name: string;\n  hidden: number;\n",
		"  when: string;\n",
		"  maybe: inner | null;\n",
		"  opt?: inner;\n",
		"  raw: unknown;\n",
		"  tags?: string[];\n",
		"  counts: Record<string, number>;\n",
		"  list: ListResult<inner>;\n",
		"  nested: { A: number; };\n",
		"  Untagged: boolean;\n}",
		"export interface inner {\n  name: string;\n  hidden: string;\n}",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	for _, bad := range []string{"Skipped", "private"} {
		if strings.Contains(string(got), bad) {
			t.Errorf("%s declared:\n%s", bad, got)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	t.Parallel()
	type a struct {
		S selfEncoded `json:"s"`
	}
	if _, err := Generate(Config{Roots: []Root{{Name: "A", Type: reflect.TypeFor[a]()}}}); err == nil {
		t.Error("a type that encodes itself without a literal: no error")
	}
	if _, err := Generate(Config{Roots: []Root{{Name: "A", Type: reflect.TypeFor[a]()}},
		Literal: map[string]string{"tsgen.selfEncoded": "string"}}); err != nil {
		t.Errorf("with a literal: %v", err)
	}
	type b struct {
		X inner `json:"x"`
	}
	if _, err := Generate(Config{Roots: []Root{{Name: "B", Type: reflect.TypeFor[b]()}},
		Names: map[string]string{"tsgen.inner": "B"}}); err == nil {
		t.Error("two types named B: no error")
	}
	if _, err := Generate(Config{Roots: []Root{{Name: "B", Type: reflect.TypeFor[b]()}},
		Names: map[string]string{"gone.inner": "C"}}); err == nil || !strings.Contains(err.Error(), "gone.inner") {
		t.Errorf("a rename of a type no root reaches: %v, want an error naming it", err)
	}
}

func TestSourceDocs(t *testing.T) {
	t.Parallel()
	docs := SourceDocs(filepath.Join("..", "..", "..", ".."), "github.com/ctxls/ctxls")
	tests := []struct{ pkg, typ, field, want string }{
		{"github.com/ctxls/ctxls/providers/ops", "SearchRequest", "Limit", "Limit is the most results returned; 0 means the default of 50."},
		{"github.com/ctxls/ctxls/providers/ops", "SearchRequest", "", "SearchRequest asks for the topics matching Query, best first."},
		{"github.com/ctxls/ctxls/providers/ops", "SearchRequest", "Nope", ""},
		{"example.com/elsewhere", "T", "", ""},
	}
	for _, tt := range tests {
		if got := docs(tt.pkg, tt.typ, tt.field); got != tt.want {
			t.Errorf("docs(%s, %s, %q) = %q, want %q", tt.pkg, tt.typ, tt.field, got, tt.want)
		}
	}
}

type empty struct{}

type params struct {
	Q string `json:"q"`
}

func TestGenerateMethodMaps(t *testing.T) {
	t.Parallel()
	got, err := Generate(Config{
		Roots: []Root{
			{Name: "ParamsOfM", Type: reflect.TypeFor[params]()},
			{Name: "Items", Type: reflect.TypeFor[List[inner]]()},
		},
		Requests: []Method{
			{Name: "x/m", Params: reflect.TypeFor[params](), Result: reflect.TypeFor[List[inner]](), Doc: "Does m."},
			{Name: "x/maybe", Params: reflect.TypeFor[empty](), Result: reflect.TypeFor[*inner]()},
		},
		Notifications: []Method{{Name: "x/it's", Params: reflect.TypeFor[empty]()}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"export interface RequestMap {\n  /** Does m. */\n  'x/m': { params: ParamsOfM; result: Items };\n",
		"  'x/maybe': { params: empty; result: inner | null };\n}\n",
		"export type RequestMethod = keyof RequestMap;\n",
		"export interface NotificationMap {\n  'x/it\\'s': empty;\n}\n",
		"export type NotificationMethod = keyof NotificationMap;\n",
		"export type empty = Record<string, never>;\n",
		"export interface inner {\n",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if i, j := strings.Index(string(got), "export interface inner"), strings.Index(string(got), "export interface RequestMap"); i > j {
		t.Errorf("a type the requests reach is declared after RequestMap:\n%s", got)
	}
	if _, err := Generate(Config{Requests: []Method{{Name: "x/n", Params: reflect.TypeFor[params]()}}}); err == nil {
		t.Error("a request without a result: no error")
	}
}

func TestConstDocs(t *testing.T) {
	t.Parallel()
	docs := ConstDocs(filepath.Join("..", "..", "..", ".."), "github.com/ctxls/ctxls", "github.com/ctxls/ctxls/providers/ops")
	tests := []struct{ value, want string }{
		{"ctxls/catalog", "Lists the topics of the library."},
		{"ctxls/libraryChanged", "Topics, commands or the configuration changed on disk or in the settings, or a document was saved."},
		{"ctxls/nope", ""},
	}
	for _, tt := range tests {
		if got := docs[tt.value]; got != tt.want {
			t.Errorf("ConstDocs()[%q] = %q, want %q", tt.value, got, tt.want)
		}
	}
	if got := ConstDocs(".", "github.com/ctxls/ctxls", "example.com/elsewhere"); len(got) != 0 {
		t.Errorf("a package outside the module: %v", got)
	}
}

func TestWithoutName(t *testing.T) {
	t.Parallel()
	tests := []struct{ doc, name, want string }{
		{"MethodX lists things.", "MethodX", "Lists things."},
		{"NotifyY: it changed.", "NotifyY", "It changed."},
		{"MethodXY lists.", "MethodX", "MethodXY lists."},
		{"Other words.", "MethodX", "Other words."},
		{"MethodX", "MethodX", "MethodX"},
		{"", "MethodX", ""},
	}
	for _, tt := range tests {
		if got := withoutName(tt.doc, tt.name); got != tt.want {
			t.Errorf("withoutName(%q, %q) = %q, want %q", tt.doc, tt.name, got, tt.want)
		}
	}
}
