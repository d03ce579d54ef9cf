package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxls/ctxls/providers/tokens"
)

// maxTokensInput bounds what ctxls tokens reads of one file, so that a
// count's memory stays bounded.
const maxTokensInput = 64 << 20

func runTokens(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newWorkspaceFlags("tokens", stderr, false)
	tokenizer := fs.String("tokenizer", "", "token encoding: "+strings.Join(tokens.Names(), ", ")+" (default: the model's, else the workspace's)")
	model := fs.String("model", "", "count in the encoding of this model (a model of .ctxls.yaml, or a name such as claude-opus-4-6)")
	message := fs.Bool("message", false, "count each input as one user message, its frame included, as Claude's count_tokens reports it")
	files, err := fs.parse(args)
	if err != nil {
		return err
	}
	if *tokenizer != "" && *model != "" {
		return usageError{msg: "give --tokenizer or --model, not both"}
	}
	name := *tokenizer
	if name == "" {
		dir := *fs.dir
		if dir == "" {
			dir = "."
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return fmt.Errorf("tokens: %w", err)
		}
		cfg, err := loadConfig(abs, stderr)
		if err != nil {
			return err
		}
		name = cfg.Tokenizer
		if *model != "" {
			name = cfg.TokenizerFor(*model)
			if _, m, ok := cfg.Model(*model); !ok || m.Tokenizer == "" {
				if _, known := tokens.ForModel(*model); !known {
					return usageError{msg: fmt.Sprintf("--model %s: no model of .ctxls.yaml and no model ctxls knows the tokenizer of; give --tokenizer", *model)}
				}
			}
		}
	}
	counter, err := tokens.New(name)
	if err != nil {
		return usageError{msg: err.Error()}
	}
	count := counter.Count
	if *message {
		mc, ok := counter.(tokens.MessageCounter)
		if !ok {
			return usageError{msg: fmt.Sprintf("--message counts as Claude's count_tokens does, with a Claude tokenizer (%s); %s has no message frame", strings.Join([]string{tokens.Claude, tokens.Claude3, tokens.Claude47, tokens.Claude5}, ", "), counter.Name())}
		}
		count = mc.CountMessage
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	failed := false
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		text, err := readInput(f, stdin)
		if err != nil {
			fmt.Fprintf(stderr, "ctxls tokens: %v\n", err)
			failed = true
			continue
		}
		n := count(text)
		if *fs.format == "json" {
			if err := enc.Encode(struct {
				File      string `json:"file"`
				Tokens    int    `json:"tokens"`
				Tokenizer string `json:"tokenizer"`
			}{f, n, counter.Name()}); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(stdout, "%d\t%s\t%s\n", n, counter.Name(), oneLine(f))
	}
	if failed {
		return exitError(2)
	}
	return nil
}

// readInput reads a file, or standard input for "-", up to
// maxTokensInput bytes.
func readInput(name string, stdin io.Reader) (string, error) {
	var r io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if info, err := f.Stat(); err == nil && info.IsDir() {
			return "", fmt.Errorf("%s is a directory", name)
		}
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxTokensInput+1))
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > maxTokensInput {
		return "", fmt.Errorf("%s: over %d MiB, more than ctxls counts at once", name, maxTokensInput>>20)
	}
	return string(b), nil
}
