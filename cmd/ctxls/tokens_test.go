package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeFixtures holds documents with the input_tokens that Claude's
// count_tokens recorded for each, per family.
var claudeFixtures = filepath.Join("..", "..", "providers", "tokens", "claude", "testdata")

type recordedDoc struct {
	id, text string
	counts   map[string]int // family (v3, v4.7, v5) to input_tokens
}

// heldOutDocs returns the documents set aside from the development of the
// Claude tokenizer, one in five by a hash of the id.
func heldOutDocs(t *testing.T) []recordedDoc {
	t.Helper()
	var docs []recordedDoc
	for _, corpus := range []string{"rosetta", "udhr"} {
		var counts map[string]struct {
			Counts map[string]int `json:"counts"`
		}
		raw, err := os.ReadFile(filepath.Join(claudeFixtures, corpus+"_counts.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &counts); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(claudeFixtures, corpus+".jsonl.gz"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(zr)
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			var d struct{ ID, F, Text string }
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
				t.Fatal(err)
			}
			id := d.ID + d.F
			h := fnv.New32a()
			h.Write([]byte(id))
			if h.Sum32()%5 != 0 {
				continue
			}
			doc := recordedDoc{id: corpus + "-" + id, text: d.Text, counts: map[string]int{}}
			for fam, c := range counts {
				doc.counts[fam] = c.Counts[id]
			}
			docs = append(docs, doc)
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return docs
}

// ctxls tokens --message reproduces every held-out recorded count of all
// three Claude families.
func TestTokensMessageHeldOut(t *testing.T) {
	t.Parallel()
	docs := heldOutDocs(t)
	if len(docs) < 400 {
		t.Fatalf("%d held-out documents", len(docs))
	}
	dir := t.TempDir()
	var files []string
	for _, d := range docs {
		p := filepath.Join(dir, d.id+".txt")
		if err := os.WriteFile(p, []byte(d.text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for fam, tokenizer := range map[string]string{"v3": "claude-3", "v4.7": "claude-4.7", "v5": "claude-5"} {
		out, stderr, status := runCLIStatus(t, "", append([]string{"tokens", "--message", "--tokenizer", tokenizer, "--format", "json", "--dir", dir}, files...)...)
		if status != 0 {
			t.Fatalf("%s: exit %d: %s", tokenizer, status, stderr)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != len(docs) {
			t.Fatalf("%s: %d lines for %d files", tokenizer, len(lines), len(docs))
		}
		exact := 0
		for i, line := range lines {
			var got struct {
				File      string `json:"file"`
				Tokens    int    `json:"tokens"`
				Tokenizer string `json:"tokenizer"`
			}
			if err := json.Unmarshal([]byte(line), &got); err != nil {
				t.Fatal(err)
			}
			if got.File != files[i] || got.Tokenizer != tokenizer {
				t.Fatalf("%s: line %d names %s in %s", tokenizer, i, got.File, got.Tokenizer)
			}
			if want := docs[i].counts[fam]; got.Tokens == want {
				exact++
			} else {
				t.Errorf("%s %s: %d tokens, count_tokens recorded %d", tokenizer, docs[i].id, got.Tokens, want)
			}
		}
		t.Logf("%s: %d of %d held-out documents exact", tokenizer, exact, len(docs))
	}
}

func TestTokensCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "a.md")
	if err := os.WriteFile(file, []byte("Hello, world!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		stdin  string
		args   []string
		want   string
		status int
	}{
		// Standard input, by - or by no file at all.
		{"Hello, world!\n", []string{"--tokenizer", "claude", "--message"}, "12\tclaude-5\t-\n", 0},
		{"Hello, world!\n", []string{"--tokenizer", "claude-3", "--message", "-"}, "11\tclaude-3\t-\n", 0},
		// Without --message, the frame (7 tokens in claude-3) is left out.
		{"", []string{"--tokenizer", "claude-3", file}, fmt.Sprintf("4\tclaude-3\t%s\n", file), 0},
		{"", []string{"--model", "claude-opus-4-7", "--message", "--format", "json", file}, fmt.Sprintf(`{"file":%q,"tokens":17,"tokenizer":"claude-4.7"}`+"\n", file), 0},
		{"", []string{"--model", "gpt-4o", file}, fmt.Sprintf("4\to200k_base\t%s\n", file), 0},
		// The workspace's tokenizer by default.
		{"", []string{"--dir", dir, file}, fmt.Sprintf("4\to200k_base\t%s\n", file), 0},
		// Mistakes.
		{"", []string{"--tokenizer", "o200k_base", "--message", file}, "", 2},
		{"", []string{"--tokenizer", "claude-9", file}, "", 2},
		{"", []string{"--tokenizer", "claude", "--model", "claude-opus-5", file}, "", 2},
		{"", []string{"--model", "mystery-1", file}, "", 2},
		{"", []string{"--tokenizer", "claude", filepath.Join(dir, "missing.md"), file}, fmt.Sprintf("6\tclaude-5\t%s\n", file), 2},
	} {
		out, stderr, status := runCLIStatus(t, c.stdin, append([]string{"tokens"}, c.args...)...)
		if out != c.want || status != c.status {
			t.Errorf("tokens %v: %q, exit %d (%s); want %q, exit %d", c.args, out, status, stderr, c.want, c.status)
		}
	}
}
