package chain

import (
	"context"

	"github.com/ctxls/ctxls/providers/context/contextprovider"
)

// ProjectTypeDetector returns the DetectProjectType of execution.Options
// for the workspace of p: the project type contextprovider's
// DetectWorkspace finds in the workspace's files, "" when it finds none or
// fails (onError, when set, gets the failure).
func ProjectTypeDetector(p *contextprovider.Provider, onError func(error)) func(context.Context) string {
	return func(ctx context.Context) string {
		t, err := p.DetectWorkspace(ctx)
		if err != nil && onError != nil {
			onError(err)
		}
		return t
	}
}
