//go:build unix

package ops_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/runs/trust"
)

// agentScript is an agent that fails its first run and records its input
// in ran.log at every run.
const agentScript = "#!/bin/sh\ncat >> ran.log\nif [ ! -f failed ]; then touch failed; exit 1; fi\n"

// consentWorkspace writes a workspace whose .ctxls.yaml runs ./agent.sh
// and returns its operations over a store of agreements of its own, built
// with the editor settings given (nil: none).
func consentWorkspace(t *testing.T, settings string) (*ops.Ops, string, *trust.Store) {
	t.Helper()
	files := maps.Clone(tree)
	files[".ctxls.yaml"] = "executor:\n  kind: exec\n  command: [\"./agent.sh\"]\n"
	files["agent.sh"] = agentScript
	dir := libtest.WriteTree(t, files)
	if err := os.Chmod(filepath.Join(dir, "agent.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if settings != "" {
		s, err := config.ParseSettings(json.RawMessage(settings))
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ = cfg.Apply(s)
	}
	lib, err := library.Load(context.Background(), dir, cfg, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := trust.Open(filepath.Join(t.TempDir(), trust.FileName))
	o := ops.New(ops.Options{Snapshot: ops.Static(lib.Snapshot()), Trust: st})
	t.Cleanup(func() { o.Close() })
	return o, dir, st
}

func ran(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "ran.log"))
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConsent checks that an exec executor of the workspace's .ctxls.yaml
// runs neither from run nor from resume before the user agreed to it,
// whatever command line the request pins, and runs once agreed to.
func TestConsent(t *testing.T) {
	t.Parallel()
	o, dir, st := consentWorkspace(t, "")
	ctx := context.Background()
	argv := []string{"./agent.sh"}
	list, err := o.Chains(ctx, ops.Empty{})
	if err != nil || !list.Executor.NeedsConsent || list.Executor.Source != ops.SourceWorkspace {
		t.Fatalf("Chains executor = %+v, %v; want one of the workspace that needs consent", list.Executor, err)
	}
	refused := func(what string, err error) {
		t.Helper()
		var ce *ops.ConsentError
		if !errors.Is(err, ops.ErrConsent) || !errors.As(err, &ce) || !strings.Contains(err.Error(), "ctxls trust grant --dir "+dir) {
			t.Errorf("%s: err = %v; want a consent refusal naming ctxls trust grant --dir %s", what, err, dir)
		}
		if got := ran(t, dir); got != "" {
			t.Fatalf("%s: the agent ran on %q", what, got)
		}
	}
	for _, pin := range [][]string{nil, argv} {
		_, err := o.RunChain(ctx, ops.ChainRequest{Commands: []string{"implement"}, Input: "x", ExecutorCommand: pin})
		refused("run pinned to "+strings.Join(pin, " "), err)
	}
	if execs, err := o.Executions(ctx, ops.ExecutionListRequest{}); err != nil || len(execs.Items) != 0 {
		t.Fatalf("executions after the refusals = %+v, %v; want none recorded", execs.Items, err)
	}
	// A grant names the argv the user was shown: another is refused.
	if _, err := o.GrantTrust(ctx, ops.TrustGrantRequest{Command: []string{"./agent.sh", "--other"}}); !errors.Is(err, ops.ErrInvalid) {
		t.Fatalf("GrantTrust of another argv = %v; want invalid params", err)
	}
	res, err := o.GrantTrust(ctx, ops.TrustGrantRequest{Command: argv})
	if err != nil || res.Executor.NeedsConsent || len(res.Granted) != 1 || res.Store != st.Path() {
		t.Fatalf("GrantTrust = %+v, %v", res, err)
	}
	run, err := o.RunChain(ctx, ops.ChainRequest{Commands: []string{"implement"}, Input: "first"})
	if err != nil {
		t.Fatalf("RunChain once agreed: %v", err)
	}
	if !strings.Contains(ran(t, dir), "first") {
		t.Fatalf("the agent did not run once agreed; ran.log %q", ran(t, dir))
	}
	// The first run failed: resuming it runs the agent again, unless the
	// agreement is revoked.
	if r, err := o.RevokeTrust(ctx, ops.Empty{}); err != nil || !r.Revoked {
		t.Fatalf("RevokeTrust = %+v, %v", r, err)
	}
	before := ran(t, dir)
	_, err = o.ResumeChain(ctx, ops.ChainRequest{SessionID: run.SessionID, ExecutorCommand: argv})
	if !errors.Is(err, ops.ErrConsent) {
		t.Fatalf("ResumeChain after the revoke = %v; want a consent refusal", err)
	}
	if got := ran(t, dir); got != before {
		t.Fatalf("the agent ran on resume after the revoke: %q", got)
	}
	if _, err := o.GrantTrust(ctx, ops.TrustGrantRequest{Command: argv}); err != nil {
		t.Fatal(err)
	}
	if _, err := o.ResumeChain(ctx, ops.ChainRequest{SessionID: run.SessionID}); err != nil {
		t.Fatalf("ResumeChain once agreed again: %v", err)
	}
	// The repository changes its script: asked again.
	if err := os.WriteFile(filepath.Join(dir, "agent.sh"), []byte(agentScript+"echo changed\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	before = ran(t, dir)
	_, err = o.RunChain(ctx, ops.ChainRequest{Commands: []string{"implement"}, Input: "again"})
	if ce, ok := ops.IsConsent(err); !ok || !strings.Contains(ce.Changed, "./agent.sh") {
		t.Fatalf("RunChain after the script changed = %v; want a consent refusal saying it changed", err)
	}
	if got := ran(t, dir); got != before {
		t.Fatalf("the changed script ran: %q", got)
	}
}

// TestConsentNotForSettings checks that a command line from the editor's
// settings, the user's own, runs without an agreement.
func TestConsentNotForSettings(t *testing.T) {
	t.Parallel()
	o, dir, _ := consentWorkspace(t, `{"ctxls": {"executor": {"command": ["./agent.sh"]}}}`)
	ctx := context.Background()
	list, err := o.Chains(ctx, ops.Empty{})
	if err != nil || list.Executor.NeedsConsent || list.Executor.Source != ops.SourceSettings {
		t.Fatalf("Chains executor = %+v, %v; want the settings' one, needing no consent", list.Executor, err)
	}
	if _, err := o.RunChain(ctx, ops.ChainRequest{Commands: []string{"implement"}, Input: "mine"}); err != nil {
		t.Fatalf("RunChain: %v", err)
	}
	if !strings.Contains(ran(t, dir), "mine") {
		t.Fatal("the settings' executor did not run")
	}
}
