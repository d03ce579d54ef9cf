package claude

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// fixture is one recorded document: its text and, per family, the
// input_tokens count_tokens returned for it as one user message.
type fixture struct {
	corpus, id, text string
	counts           map[string]int
}

// familyOf maps a recorded family to its tokenizer name.
var familyOf = map[string]string{"v3": Claude3, "v4.7": Claude47, "v5": Claude5}

func readFixtures(t testing.TB) []fixture {
	t.Helper()
	var out []fixture
	for _, corpus := range []string{"rosetta", "udhr"} {
		counts := map[string]struct {
			Model  string         `json:"model"`
			Counts map[string]int `json:"counts"`
		}{}
		raw, err := os.ReadFile(filepath.Join("testdata", corpus+"_counts.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &counts); err != nil {
			t.Fatalf("%s counts: %v", corpus, err)
		}
		f, err := os.Open(filepath.Join("testdata", corpus+".jsonl.gz"))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(zr)
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			var doc struct {
				ID   string `json:"id"`
				F    string `json:"f"` // the UDHR corpus names a document f
				Text string `json:"text"`
			}
			if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
				t.Fatalf("%s: %v", corpus, err)
			}
			if doc.ID == "" {
				doc.ID = doc.F
			}
			fx := fixture{corpus: corpus, id: doc.ID, text: doc.Text, counts: map[string]int{}}
			for fam, c := range counts {
				if n, ok := c.Counts[doc.ID]; ok {
					fx.counts[fam] = n
				}
			}
			out = append(out, fx)
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return out
}

// heldOut reports the documents set aside from the development of the
// normalizer: one in five, chosen by a hash of the id.
func heldOut(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%5 == 0
}

func TestFixtures(t *testing.T) {
	fixtures := readFixtures(t)
	if len(fixtures) != 1741+501 {
		t.Fatalf("read %d documents, want %d", len(fixtures), 1741+501)
	}
	total := 0
	for _, fx := range fixtures {
		total += len(fx.counts)
	}
	if total != 3*(1741+501) {
		t.Fatalf("read %d recorded counts, want %d", total, 3*(1741+501))
	}
	type tally struct{ docs, exact int }
	results := map[string]*tally{}
	var bad []string
	for _, fx := range fixtures {
		for fam, want := range fx.counts {
			c, ok := New(familyOf[fam])
			if !ok {
				t.Fatalf("no tokenizer for family %s", fam)
			}
			set := "dev"
			if heldOut(fx.id) {
				set = "held-out"
			}
			key := fx.corpus + " " + fam + " " + set
			r := results[key]
			if r == nil {
				r = &tally{}
				results[key] = r
			}
			r.docs++
			if got := c.CountMessage(fx.text); got == want {
				r.exact++
			} else {
				bad = append(bad, fam+" "+fx.corpus+" "+fx.id)
				t.Errorf("%s %s %s: got %d, want %d", fam, fx.corpus, fx.id, got, want)
			}
		}
	}
	keys := make([]string, 0, len(results))
	for k := range results {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-24s %4d/%4d exact", k, results[k].exact, results[k].docs)
	}
}

// TestConcurrentCounts counts fixtures from several goroutines at once
// on tables of their own, so that the caches fill while they are read,
// and checks every count against the recorded one.
func TestConcurrentCounts(t *testing.T) {
	t.Parallel()
	var fixtures []fixture
	for i, fx := range readFixtures(t) {
		if i%4 == 0 {
			fixtures = append(fixtures, fx)
		}
	}
	f := &family{name: Claude47, vocab: &vocabulary{data: v47Data}, frameBow: true, frameTail: tailLadder}
	const workers = 4
	errs := make(chan string, workers)
	for w := range workers {
		go func() {
			bad := ""
			// Each worker walks the documents from its own start.
			for k := range len(fixtures) {
				fx := fixtures[(k+w*len(fixtures)/workers)%len(fixtures)]
				if got, want := f.count(fx.text)+f.load().overhead, fx.counts["v4.7"]; got != want && bad == "" {
					bad = fmt.Sprintf("%s %s: got %d, want %d", fx.corpus, fx.id, got, want)
				}
			}
			errs <- bad
		}()
	}
	for range workers {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}
