package contextapi

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// projectWithExample writes files (path → content) into a workspace that
// holds a copy of the example library, and loads it.
func projectWithExample(t *testing.T, files map[string]string) *Provider {
	t.Helper()
	dir := t.TempDir()
	libtest.CopyTree(t, libtest.ExampleDir(t), dir)
	testtree.WriteFiles(t, dir, files)
	return NewStatic(loadDir(t, dir, nil).Snapshot())
}

func TestWorkspaceSignals(t *testing.T) {
	t.Parallel()
	p := projectWithExample(t, map[string]string{
		"pyproject.toml":          "[project]\nname = \"shop\"\n",
		"app/main.py":             "\"\"\"Shop.\"\"\"\nfrom fastapi import FastAPI\nimport sqlalchemy\n\napp = FastAPI()\n",
		"app/routers/items.py":    "from fastapi import APIRouter\n",
		"node_modules/x/index.js": "import 'should-not-be-read'\n",
		".venv/lib/site.py":       "import hidden\n",
	})
	sig, err := p.workspaceSignals(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// One import line per package.
	if !slices.Equal(sig.Imports, []string{"from fastapi import FastAPI", "import sqlalchemy"}) {
		t.Errorf("imports %q, want the first line of each package", sig.Imports)
	}
	for _, s := range slices.Concat(sig.Imports, sig.FilePatterns) {
		if strings.Contains(s, "should-not-be-read") || strings.Contains(s, "hidden") || strings.HasPrefix(s, "context/") || strings.HasPrefix(s, "commands/") {
			t.Errorf("signal %q comes from a directory that is not the project's", s)
		}
	}
	if !slices.Contains(sig.ConfigFiles, "pyproject.toml") || !slices.Contains(sig.FilePatterns, "app/routers/items.py") {
		t.Errorf("config files %q, file patterns %q", sig.ConfigFiles, sig.FilePatterns)
	}
}

func TestDetectWorkspace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"fastapi", map[string]string{"app/main.py": "from fastapi import FastAPI\nfrom sqlalchemy.orm import Session\n"}, "fastapi"},
		{"django", map[string]string{"manage.py": "import django\n", "blog/models.py": "from django.db import models\n"}, "django"},
		{"nothing but the library", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := projectWithExample(t, tc.files).DetectWorkspace(t.Context())
			if err != nil || got != tc.want {
				t.Errorf("DetectWorkspace = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// The detection result always carries architecture, empty or not.
func TestDetectionResultHasArchitecture(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(DetectionResult{})
	if err != nil || !strings.Contains(string(b), `"architecture":""`) {
		t.Errorf("DetectionResult JSON = %s, %v; want an architecture field", b, err)
	}
}

// A reference's path is relative to the library's root, and a reference
// given by that path, or by the absolute one, materializes its file.
func TestReferencePathRelative(t *testing.T) {
	t.Parallel()
	p, lib := exampleProvider(t)
	cat, err := p.Catalog(t.Context(), "python")
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range cat.Items {
		if filepath.IsAbs(it.Path) || !strings.HasPrefix(it.Path, "context/python/") {
			t.Errorf("catalog path %q, want one relative to the library root", it.Path)
		}
	}
	for _, path := range []string{"context/python/fastapi_patterns.md", filepath.Join(lib.Snapshot().Dir(), "context", "python", "fastapi_patterns.md")} {
		f, err := p.Materialize(t.Context(), Reference{Path: path})
		if err != nil || f.ID != "python/fastapi_patterns" {
			t.Errorf("materialize by path %s: %+v, %v", path, f, err)
		}
	}
}

// BenchmarkDetectWorkspace detects the project type of a workspace of
// 3,000 source files around the example library: what creating an
// execution costs.
func BenchmarkDetectWorkspace(b *testing.B) {
	dir := b.TempDir()
	libtest.CopyTree(b, libtest.ExampleDir(b), dir)
	files := map[string]string{}
	for i := range 3000 {
		files[fmt.Sprintf("app/pkg%02d/mod%d.py", i%30, i)] = fmt.Sprintf("import os\nfrom fastapi import APIRouter\nfrom app.pkg%02d import helper%d\n\n%s", i%30, i, strings.Repeat("x = 1\n", 200))
	}
	testtree.WriteFiles(b, dir, files)
	p := NewStatic(loadDir(b, dir, nil).Snapshot())
	for b.Loop() {
		if got, err := p.DetectWorkspace(b.Context()); err != nil || got != "fastapi" {
			b.Fatalf("DetectWorkspace = %q, %v", got, err)
		}
	}
}

func TestImportRoot(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"from app.models.user import User":   "app",
		"import os.path":                     "os",
		"from fastapi import FastAPI":        "fastapi",
		`import "github.com/a/b/c"`:          "github.com/a/b",
		`import React from 'react'`:          "react",
		`import { x } from "@scope/pkg/sub"`: "@scope/pkg",
		`const fs = require("node:fs")`:      "node:fs",
		"use std::collections::HashMap;":     "std::collections::HashMap",
		"import './styles.css';":             "./styles.css",
	}
	for line, want := range tests {
		if got := importRoot(line); got != want {
			t.Errorf("importRoot(%q) = %q, want %q", line, got, want)
		}
	}
}
