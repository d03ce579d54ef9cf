package chain

import (
	"context"

	"github.com/ctxls/ctxls/providers/contextapi"
)

// ProjectTypeDetector returns the DetectProjectType of execution.Options
// for the workspace of p: the project type contextapi's
// DetectWorkspace finds in the workspace's files, "" when it finds none or
// fails (onError, when set, gets the failure).
func ProjectTypeDetector(p *contextapi.Provider, onError func(error)) func(context.Context) string {
	return func(ctx context.Context) string {
		t, err := p.DetectWorkspace(ctx)
		if err != nil && onError != nil {
			onError(err)
		}
		return t
	}
}
