package contextapi

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
)

func TestDetectProjectType(t *testing.T) {
	t.Parallel()
	p, _ := exampleProvider(t)
	cases := []struct {
		name      string
		domain    string
		signals   Signals
		framework string
		libraries []string
		testing   string
		files     []string
	}{
		{"fastapi service", "python", Signals{
			Imports:      []string{"from fastapi import FastAPI", "from sqlalchemy.orm import Session", "import pytest"},
			FilePatterns: []string{"app/main.py", "tests/conftest.py"},
			ConfigFiles:  []string{"pyproject.toml"},
		}, "fastapi", []string{"sqlalchemy"}, "pytest",
			[]string{"python/fastapi_patterns", "python/pydantic_models", "python/sqlalchemy_patterns", "testing/pytest_patterns"}},
		{"django by marker files and code", "python", Signals{
			FilePatterns: []string{"manage.py", "blog/migrations/0001_initial.py"},
			CodePatterns: []string{"class Post(models.Model):"},
		}, "django", []string{}, "", []string{"python/django_patterns"}},
		{"bare module names", "python", Signals{Imports: []string{"pydantic", "asyncio"}}, "",
			[]string{"pydantic", "asyncio"}, "", []string{"python/pydantic_models", "python/async_patterns"}},
		{"submodule import", "python", Signals{Imports: []string{"from sqlalchemy.ext.asyncio import AsyncSession"}}, "",
			[]string{"sqlalchemy"}, "", []string{"python/sqlalchemy_patterns"}},
		{"one weak file marker is not enough", "python", Signals{FilePatterns: []string{"src/app/models/user.py"}}, "",
			[]string{}, "", []string{}},
		{"testing domain", "testing", Signals{Imports: []string{"from unittest.mock import patch", "import pytest"}}, "",
			[]string{"mocking"}, "pytest", []string{"testing/mocking_guidelines", "testing/pytest_patterns"}},
		{"glob file marker", "testing", Signals{FilePatterns: []string{"pkg/server_test.go"}, Imports: []string{`"testing"`}}, "",
			[]string{}, "go testing", []string{"testing/test_strategy"}},
		{"triggers without a detection file", "git", Signals{CodePatterns: []string{"<<<<<<< HEAD"}}, "",
			[]string{"merge_conflicts"}, "", []string{"git/merge_conflicts"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, err := p.DetectProjectType(bg, c.domain, c.signals)
			if err != nil {
				t.Fatal(err)
			}
			if r.Framework != c.framework || r.TestingFramework != c.testing || !slices.Equal(r.Libraries, c.libraries) {
				t.Errorf("framework %q libraries %v testing %q, want %q %v %q", r.Framework, r.Libraries, r.TestingFramework, c.framework, c.libraries, c.testing)
			}
			if !slices.Equal(r.RecommendedFiles, c.files) {
				t.Errorf("recommended %v, want %v", r.RecommendedFiles, c.files)
			}
			for _, m := range r.Matches {
				if m.Score < detectThreshold || m.Score > 1 || len(m.Evidence) == 0 {
					t.Errorf("match %+v", m)
				}
			}
		})
	}

	r, _ := p.DetectProjectType(bg, "nope", Signals{Imports: []string{"import x"}})
	if !hasWarning(r.Warnings, WarnDomainNotFound, "nope") || r.RecommendedFiles == nil || r.Libraries == nil {
		t.Errorf("missing domain: %+v", r)
	}
}

// forgeStyle is a library laid out like a real-world one: a detection
// file with a "Load" column whose name column is not the first, rows
// naming several files, a table without a files column, and a
// cross-domain matrix with "Any code review" rows and {domain} paths.
var forgeStyle = map[string]string{
	".ctxls.yaml":                            "budget:\n  files: 3\n  tokens: 100000\n",
	"context/cross_domain.md":                "# Cross-Domain\n\n## Matrix\n\n| Primary Domain | Trigger Condition | Secondary Context to Load | Relevance Score | Token Impact |\n|---|---|---|---|---|\n| python/ | Auth, password, or input handling code detected | `security/security_guidelines.md` | 0.9 | ~250 |\n| python/ | SQL queries, ORM usage, or database models detected | `security/security_guidelines.md` | 0.9 | ~250 |\n| python/ | Schema/migration files in diff | `schema/common_patterns.md` | 0.6 | ~300 |\n| angular/ | API integration, HTTP calls, or form input code | `security/security_guidelines.md` | 0.8 | ~250 |\n| Any code review | Performance-critical code flagged | `{domain}/performance_patterns.md` | 0.7 | ~350 |\n| Any code review | Infrastructure or deployment files | `azure/index.md` (for Azure projects) | 0.3 | ~200 |\n",
	"context/python/index.md":                "# Python\n\n### `flask_patterns.md`\n\n**Purpose**: Flask framework best practices\n\n---\n",
	"context/python/common_issues.md":        "---\ntype: always\nloadingStrategy: always\n---\n# Common\n\ntext\n",
	"context/python/django_patterns.md":      "# Django\n\ntext\n",
	"context/python/flask_patterns.md":       "# Flask\n\ntext\n",
	"context/python/ml_patterns.md":          "# ML\n\nsome text about models\n",
	"context/python/datascience_patterns.md": "# DS\n\ntext\n",
	"context/python/performance_patterns.md": "# Perf\n\ntext\n",
	"context/python/context_detection.md": "# Detection\n\n## Web Frameworks\n\n| Framework | Key Imports | File Markers | Pattern Files to Load | Docs |\n|---|---|---|---|---|\n" +
		"| **Django** | `from django.db import models`<br/>`from django.http import HttpResponse` | `manage.py`<br/>`migrations/` | `django_patterns.md` | [docs](https://x) |\n" +
		"| **Flask** | `from flask import Flask` | `app.py` or `run.py` | `flask_patterns.md` | [docs](https://x) |\n\n" +
		"## Data Science / ML\n\n| Context | Key Imports | File Markers | Pattern Files to Load |\n|---|---|---|---|\n" +
		"| **Machine Learning** | `import sklearn`<br/>`import torch` | `*.pkl` files | `ml_patterns.md`<br/>`datascience_patterns.md` |\n\n" +
		"## Quick Detection Table\n\n| If You See... | Framework/Context | Load |\n|---|---|---|\n| `Flask(__name__)`, `@app.route` | Flask | `flask_patterns.md` |\n| All of the above | Always load | `common_issues.md` |\n| `x` | Gone | `missing_topic.md` |\n\n" +
		"## ORM Detection\n\n| ORM | Key Imports | Pattern |\n|---|---|---|\n| **SQLAlchemy** | `from sqlalchemy import Column` | `Base = declarative_base()` |\n\n" +
		"## Testing Framework Detection\n\n| Framework | Key Imports | Load Consideration |\n|---|---|---|\n| **pytest** | `import pytest` | Consider test-specific patterns |\n",
	"context/security/security_guidelines.md": "# Security Guidelines\n\ntext\n",
	"context/schema/common_patterns.md":       "# Schema\n\ntext\n",
	"context/azure/index.md":                  "# Azure\n",
}

func TestDetectForgeStyle(t *testing.T) {
	t.Parallel()
	p, _, _ := writeLibrary(t, forgeStyle)
	r, err := p.DetectProjectType(bg, "python", Signals{
		Imports:      []string{"from flask import Flask, request", "import torch.nn as nn", "from sqlalchemy import Column", "import pytest"},
		CodePatterns: []string{"app = Flask(__name__)"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Framework != "flask" || r.TestingFramework != "pytest" || !slices.Equal(r.Libraries, []string{"sqlalchemy", "machine learning"}) && !slices.Equal(r.Libraries, []string{"machine learning", "sqlalchemy"}) {
		t.Errorf("detected %q %v %q", r.Framework, r.Libraries, r.TestingFramework)
	}
	want := []string{"python/flask_patterns", "python/ml_patterns", "python/datascience_patterns"}
	if !slices.Equal(r.RecommendedFiles, want) {
		t.Errorf("recommended %v, want %v", r.RecommendedFiles, want)
	}
	if !hasWarning(r.Warnings, WarnUnresolved, "missing_topic.md") {
		t.Errorf("no warning for the missing topic: %v", r.Warnings)
	}

	// Conditional context: the budget is 3 files and common_issues takes
	// one of them, so the second library file is dropped.
	c, err := p.ConditionalContext(bg, "python", r)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range c.Items {
		ids = append(ids, f.ID)
	}
	if !slices.Equal(ids, []string{"python/flask_patterns", "python/ml_patterns"}) {
		t.Errorf("conditional %v", ids)
	}
	if !hasWarning(c.Warnings, WarnBudget, "python:datascience_patterns") {
		t.Errorf("no budget warning: %v", c.Warnings)
	}

	// A detection result written by hand names a framework only.
	c, _ = p.ConditionalContext(bg, "python", DetectionResult{Framework: "Django"})
	if len(c.Items) != 1 || c.Items[0].ID != "python/django_patterns" {
		t.Errorf("by name: %+v", c.Items)
	}
	c, _ = p.ConditionalContext(bg, "python", DetectionResult{RecommendedFiles: []string{"ml_patterns", "python/nope"}})
	if len(c.Items) != 1 || c.Items[0].ID != "python/ml_patterns" || !hasWarning(c.Warnings, WarnBudget, "python/nope") {
		t.Errorf("by files: %+v %v", c.Items, c.Warnings)
	}
}

func TestDetectNoRules(t *testing.T) {
	t.Parallel()
	p, _, _ := writeLibrary(t, map[string]string{"context/docs/a.md": "# A\n"})
	r, err := p.DetectProjectType(bg, "docs", Signals{Imports: []string{"import x"}})
	if err != nil || !hasWarning(r.Warnings, WarnNoDetection, "docs") || len(r.RecommendedFiles) != 0 {
		t.Errorf("%v %+v", err, r)
	}
}

func TestCrossDomainContext(t *testing.T) {
	t.Parallel()
	p, _ := exampleProvider(t)
	cases := []struct {
		domain   string
		triggers []string
		want     []string
	}{
		{"python", []string{"auth_code"}, []string{"security/secure_coding"}},
		// Both rows match "password"; the one matching both words ranks first.
		{"python", []string{"password hashing"}, []string{"security/auth_patterns", "security/secure_coding"}},
		{"python", []string{"api_keys", "dependency_changes"}, []string{"security/secrets_management", "security/dependency_security"}},
		{"git", []string{"env_files"}, []string{"security/secrets_management"}},
		{"git", []string{"dependency lock file"}, []string{"security/dependency_security"}},
		{"testing", []string{"fastapi endpoints"}, []string{"python/fastapi_patterns"}},
		{"python", []string{"fastapi"}, []string{"security/secure_coding", "testing/pytest_patterns"}},
		{"python", []string{"gardening"}, nil},
		{"security", []string{"auth_code"}, nil},
	}
	for _, c := range cases {
		t.Run(c.domain+":"+strings.Join(c.triggers, ","), func(t *testing.T) {
			t.Parallel()
			res, err := p.CrossDomainContext(bg, c.domain, c.triggers)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for i, f := range res.Items {
				ids = append(ids, f.ID)
				if i > 0 && f.Relevance > res.Items[i-1].Relevance {
					t.Errorf("not ordered by relevance: %v after %v", f.Relevance, res.Items[i-1].Relevance)
				}
				if f.Content == "" || len(f.MatchedOn) == 0 || f.Domain == c.domain {
					t.Errorf("item %s: %d bytes, matched %v", f.ID, len(f.Content), f.MatchedOn)
				}
			}
			if !slices.Equal(ids, c.want) {
				t.Errorf("got %v, want %v", ids, c.want)
			}
		})
	}
}

func TestCrossDomainForgeStyle(t *testing.T) {
	t.Parallel()
	p, _, dir := writeLibrary(t, forgeStyle)
	res, err := p.CrossDomainContext(bg, "python", []string{"sql_queries", "performance", "schema_migrations", "infrastructure"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range res.Items {
		ids = append(ids, f.ID)
	}
	// Budget: 3 files; azure/index (0.3) is dropped.
	want := []string{"security/security_guidelines", "python/performance_patterns", "schema/common_patterns"}
	if !slices.Equal(ids, want) {
		t.Errorf("got %v, want %v", ids, want)
	}
	if !hasWarning(res.Warnings, WarnBudget, "azure:index") {
		t.Errorf("warnings %v", res.Warnings)
	}
	// The {domain} row names a topic angular lacks.
	testtree.WriteFiles(t, dir, map[string]string{"context/angular/index.md": "# Angular\n"})
	p = NewStatic(loadDir(t, dir, nil).Snapshot())
	res, _ = p.CrossDomainContext(bg, "angular", []string{"perf"})
	if len(res.Items) != 0 || !hasWarning(res.Warnings, WarnUnresolved, "angular/performance_patterns.md") {
		t.Errorf("angular: %+v %v", res.Items, res.Warnings)
	}
	res, _ = p.CrossDomainContext(bg, "angular", []string{"http_calls"})
	if len(res.Items) != 1 || res.Items[0].Relevance != 0.8 {
		t.Errorf("angular http: %+v", res.Items)
	}
}

func TestDomainIndexHeadings(t *testing.T) {
	t.Parallel()
	p, _, _ := writeLibrary(t, forgeStyle)
	di, err := p.DomainIndex(bg, "python")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range di.Files {
		if f.ID == "python/flask_patterns" && f.Description != "Flask framework best practices" {
			t.Errorf("description %q", f.Description)
		}
	}
}

func TestPlanBudgetFromConfig(t *testing.T) {
	t.Parallel()
	p, lib, _ := writeLibrary(t, forgeStyle)
	if lib.Snapshot().Config().Budget != (config.Budget{Files: 3, Tokens: 100000}) {
		t.Fatalf("budget %+v", lib.Snapshot().Config().Budget)
	}
	lp, err := p.LoadingProtocol(bg)
	if err != nil || lp.TokenBudget != 3 || lp.TokenLimit != 100000 || len(lp.Steps) != 5 || !hasWarning(lp.Warnings, WarnFileNotFound, "loading_protocol.md") {
		t.Errorf("%v %+v", err, lp)
	}
}

// crossCuttingLibrary is a library whose detected topics name
// cross-cutting topics: common_issues (always loaded), fastapi_patterns
// and sqlalchemy_patterns through crossDomainTriggers, and sqlalchemy
// through a matrix row for python. budget is the .ctxls.yaml budget block.
func crossCuttingLibrary(budget string) map[string]string {
	long := strings.Repeat("Validate every input at the boundary and log the refusal. ", 20)
	return map[string]string{
		".ctxls.yaml": "budget:\n" + budget,
		"context/cross_domain.md": "# Cross-Domain\n\n| Primary Domain | Trigger Condition | Secondary Context to Load | Relevance Score |\n|---|---|---|---|\n" +
			"| python/ | SQLAlchemy sessions or raw SQL queries | `security/secrets_management.md` | 0.7 |\n" +
			"| testing/ | SQLAlchemy fixtures | `security/auth_patterns.md` | 0.9 |\n" +
			"| python/ | Celery workers | `security/auth_patterns.md` | 0.9 |\n",
		"context/python/common_issues.md": "---\ntype: always\nloadingStrategy: always\ncrossDomainTriggers: [security/secure_coding]\n---\n# Common Issues\n\nMutable defaults.\n",
		"context/python/fastapi_patterns.md": "---\ntype: framework\ncrossDomainTriggers: [security/secure_coding, security/auth_patterns, python/pydantic_models]\n---\n" +
			"# FastAPI Patterns\n\nUse Depends.\n",
		"context/python/sqlalchemy_patterns.md":   "---\ntype: library\ncrossDomainTriggers: [security/dependency_security]\n---\n# SQLAlchemy Patterns\n\nOne session per request.\n",
		"context/python/pydantic_models.md":       "---\ntype: library\n---\n# Pydantic Models\n\nValidate at the edge.\n",
		"context/security/secure_coding.md":       "# Secure Coding\n\n" + long + "\n",
		"context/security/auth_patterns.md":       "# Auth Patterns\n\n" + long + "\n",
		"context/security/secrets_management.md":  "# Secrets Management\n\n" + long + "\n",
		"context/security/dependency_security.md": "# Dependency Security\n\n" + long + "\n",
	}
}

func TestConditionalContextCrossCutting(t *testing.T) {
	t.Parallel()
	det := DetectionResult{Framework: "fastapi", Libraries: []string{"sqlalchemy"}, Matches: []DetectionMatch{
		{Name: "FastAPI", Category: catFramework, Score: 1, Files: []string{"fastapi_patterns.md"}},
		{Name: "SQLAlchemy", Category: catLibrary, Score: 0.9, Files: []string{"sqlalchemy_patterns.md"}},
	}}
	primary := []string{"python/fastapi_patterns", "python/sqlalchemy_patterns"}
	// Cross-cutting topics by relevance: the matrix row (0.7), then the
	// crossDomainTriggers (0.5) in the order their sources load. Rows of
	// another primary domain or with other conditions add nothing, nor do
	// triggers into the primary domain itself.
	cross := []string{"security/secrets_management", "security/secure_coding", "security/auth_patterns", "security/dependency_security"}
	cases := []struct {
		name   string
		budget string // "tokens: primary" is the cost of the primary topics
		det    DetectionResult
		want   []string
		crossN int // how many of want, at the end, are cross-cutting
		drop   []string
	}{
		{"everything fits", "  files: 7\n", det, slices.Concat(primary, cross), len(cross), nil},
		// common_issues takes one of the file slots.
		{"file limit drops cross-cutting topics first", "  files: 4\n", det, slices.Concat(primary, cross[:1]), 1, cross[1:]},
		{"no slot left for cross-cutting topics", "  files: 3\n", det, primary, 0, cross},
		{"token limit drops cross-cutting topics first", "  files: 7\n  tokens: primary\n", det, primary, 0, cross},
		// A dropped topic's crossDomainTriggers do not count; the matrix
		// row of a detected name still does.
		{"a dropped topic pulls nothing in", "  files: 2\n", det, primary[:1], 0,
			[]string{"python/sqlalchemy_patterns", "security/secrets_management", "security/secure_coding", "security/auth_patterns"}},
		{"a topic detected as a library is not also cross-cutting", "  files: 7\n", DetectionResult{Matches: []DetectionMatch{
			det.Matches[0],
			{Name: "Auth", Category: catLibrary, Score: 1, Files: []string{"security/auth_patterns"}},
		}}, []string{"python/fastapi_patterns", "security/auth_patterns", "security/secure_coding"}, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			budget := c.budget
			if strings.Contains(budget, "tokens: primary") {
				_, lib, _ := writeLibrary(t, crossCuttingLibrary("  files: 7\n"))
				n := 0
				for _, id := range append([]string{"python/common_issues"}, primary...) {
					tp, ok := lib.Snapshot().Topic(id)
					if !ok {
						t.Fatalf("no topic %s", id)
					}
					n += tp.Tokens
				}
				budget = strings.Replace(budget, "primary", strconv.Itoa(n), 1)
			}
			p, _, _ := writeLibrary(t, crossCuttingLibrary(budget))
			res, err := p.ConditionalContext(bg, "python", c.det)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for i, f := range res.Items {
				ids = append(ids, f.ID)
				isCross := strings.HasPrefix(f.Reason, "cross-domain: ") && len(f.MatchedOn) > 0
				if wantCross := i >= len(res.Items)-c.crossN; isCross != wantCross {
					t.Errorf("%s: reason %q, matched on %v; cross-cutting %v, want %v", f.ID, f.Reason, f.MatchedOn, isCross, wantCross)
				}
			}
			if !slices.Equal(ids, c.want) {
				t.Errorf("items %v\nwant  %v", ids, c.want)
			}
			for _, id := range c.drop {
				if !hasWarning(res.Warnings, WarnBudget, "dropped "+strings.Replace(id, "/", ":", 1)+":") {
					t.Errorf("no budget warning for %s: %v", id, res.Warnings)
				}
			}
			if len(res.Warnings) != len(c.drop) {
				t.Errorf("%d warnings, want one per dropped topic (%d): %v", len(res.Warnings), len(c.drop), res.Warnings)
			}
		})
	}
}
