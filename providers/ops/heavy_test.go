package ops_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/ops"
)

// TestHeavyOperationsQueue checks that every operation whose work grows
// with the workspace or a document waits for a place among the heavy
// requests, gives up when its context ends while it waits, and runs once
// a place is free; and that an operation called with the context of a
// place already held does not wait for a second one.
func TestHeavyOperationsQueue(t *testing.T) {
	t.Parallel()
	o, dir := load(t, tree)
	t.Cleanup(func() { o.Close() })
	calls := []struct {
		name string
		call func(context.Context) error
	}{
		{"catalog", func(ctx context.Context) error { _, err := o.Catalog(ctx, ops.CatalogRequest{}); return err }},
		{"search", func(ctx context.Context) error {
			_, err := o.Search(ctx, ops.SearchRequest{Query: "fastapi"})
			return err
		}},
		{"domainIndex", func(ctx context.Context) error {
			_, err := o.DomainIndex(ctx, ops.DomainRequest{Domain: "python"})
			return err
		}},
		{"alwaysLoadFiles", func(ctx context.Context) error {
			_, err := o.AlwaysLoadFiles(ctx, ops.DomainRequest{Domain: "python"})
			return err
		}},
		{"detectProjectType", func(ctx context.Context) error {
			_, err := o.DetectProjectType(ctx, ops.DetectRequest{Domain: "python"})
			return err
		}},
		{"conditionalContext", func(ctx context.Context) error {
			_, err := o.ConditionalContext(ctx, ops.ConditionalRequest{Domain: "python"})
			return err
		}},
		{"crossDomainContext", func(ctx context.Context) error {
			_, err := o.CrossDomainContext(ctx, ops.CrossDomainRequest{Domain: "python"})
			return err
		}},
		{"commands", func(ctx context.Context) error { _, err := o.Commands(ctx, ops.Empty{}); return err }},
		{"documentCost", func(ctx context.Context) error {
			_, err := o.DocumentCost(ctx, ops.DocumentCostRequest{URI: filepath.Join(dir, "commands", "implement.md")})
			return err
		}},
		{"chain preview", func(ctx context.Context) error {
			_, err := o.PreviewChain(ctx, ops.ChainRequest{Commands: []string{"implement"}})
			return err
		}},
		{"sessionCost", func(ctx context.Context) error { _, err := o.SessionCost(ctx, ops.SessionCostRequest{}); return err }},
		{"check", func(ctx context.Context) error { _, err := o.Check(ctx, ops.CheckRequest{}); return err }},
		{"inventory", func(ctx context.Context) error { _, err := o.Inventory(ctx, ops.InventoryRequest{}); return err }},
		{"loadContext", func(ctx context.Context) error {
			_, err := o.LoadContext(ctx, ops.LoadContextRequest{Refs: []string{"python:fastapi_patterns"}})
			return err
		}},
		{"history conversations", func(ctx context.Context) error { _, err := o.Conversations(ctx, ops.Empty{}); return err }},
		{"history buildContext", func(ctx context.Context) error {
			_, err := o.BuildHistory(ctx, ops.BuildHistoryRequest{ConversationID: "c1"})
			if errors.Is(err, ops.ErrInvalid) {
				return nil // an unknown conversation, found once it ran
			}
			return err
		}},
	}

	deadline, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Take every place: the heavy requests are limited to two at once.
	held, release1, err := o.Heavy(deadline)
	if err != nil {
		t.Fatal(err)
	}
	_, release2, err := o.Heavy(deadline)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		ctx, stop := context.WithTimeout(deadline, 20*time.Millisecond)
		err := c.call(ctx)
		stop()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s with every place taken: err = %v; want it to wait and give up with its context", c.name, err)
		}
	}
	// Holding a place, an operation that calls another heavy one (the
	// inventory lists the catalog) runs on that place.
	if _, err := o.Inventory(held, ops.InventoryRequest{}); err != nil {
		t.Errorf("inventory with a place held: %v", err)
	}
	release1()
	release2()
	for _, c := range calls {
		if err := c.call(deadline); err != nil {
			t.Errorf("%s with places free: %v", c.name, err)
		}
	}
}
