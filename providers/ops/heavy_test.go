package ops_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/ops"
)

// callOf returns a call of op with req that keeps only its error.
func callOf[Req, Res any](op func(context.Context, Req) (Res, error), req Req) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := op(ctx, req)
		return err
	}
}

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
		{"catalog", callOf(o.Catalog, ops.CatalogRequest{})},
		{"search", callOf(o.Search, ops.SearchRequest{Query: "fastapi"})},
		{"domainIndex", callOf(o.DomainIndex, ops.DomainRequest{Domain: "python"})},
		{"alwaysLoadFiles", callOf(o.AlwaysLoadFiles, ops.DomainRequest{Domain: "python"})},
		{"detectProjectType", callOf(o.DetectProjectType, ops.DetectRequest{Domain: "python"})},
		{"conditionalContext", callOf(o.ConditionalContext, ops.ConditionalRequest{Domain: "python"})},
		{"crossDomainContext", callOf(o.CrossDomainContext, ops.CrossDomainRequest{Domain: "python"})},
		{"commands", callOf(o.Commands, ops.Empty{})},
		{"documentCost", callOf(o.DocumentCost, ops.DocumentCostRequest{URI: filepath.Join(dir, "commands", "implement.md")})},
		{"chain preview", callOf(o.PreviewChain, ops.ChainRequest{Commands: []string{"implement"}})},
		{"sessionCost", callOf(o.SessionCost, ops.SessionCostRequest{})},
		{"check", callOf(o.Check, ops.CheckRequest{})},
		{"inventory", callOf(o.Inventory, ops.InventoryRequest{})},
		{"loadContext", callOf(o.LoadContext, ops.LoadContextRequest{Refs: []string{"python:fastapi_patterns"}})},
		{"history conversations", callOf(o.Conversations, ops.Empty{})},
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
