package mcp

import (
	"context"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/tokens"
)

// clientKey is the context key of the client that sent a request.
type clientKey struct{}

// withClient returns ctx carrying the client's name from its initialize
// request.
func withClient(ctx context.Context, info *sdk.Implementation) context.Context {
	if info == nil {
		return ctx
	}
	return context.WithValue(ctx, clientKey{}, info.Name)
}

// clientName returns the name of the client that sent the request, "" when
// it gave none.
func clientName(ctx context.Context) string {
	name, _ := ctx.Value(clientKey{}).(string)
	return name
}

// clientTokenizer returns the encoding the models of a client count in,
// judged from its name ("claude-code" runs Claude models, a Codex client
// OpenAI's), or "" when the name does not tell.
func clientTokenizer(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "claude"):
		return tokens.Claude
	case strings.Contains(n, "codex"), strings.Contains(n, "openai"), strings.Contains(n, "chatgpt"):
		return tokens.O200kBase
	}
	return ""
}
