package ops

import "github.com/ctxls/ctxls/providers/errkind"

// Protocol is a front end's protocol; each reports the kinds of failure
// with codes of its own.
type Protocol int

// The protocols of the front ends that answer with error codes.
const (
	// LSP is the language server's JSON-RPC.
	LSP Protocol = iota
	// MCP is the Model Context Protocol, whose tools answer a failure as a
	// result and whose resources answer it as an error.
	MCP
)

// JSON-RPC error codes of the kinds of failure. InvalidParams is the
// standard one; the others lie in the range JSON-RPC leaves to servers.
const (
	CodeInvalidParams int64 = -32602
	// CodeConflict is the language server's code of a request that
	// collides with work in progress: a chain already running in the
	// execution, here or in another ctxls process.
	CodeConflict int64 = -32001
	// CodeConsent is the language server's code of a chain refused
	// because it would run an exec executor of the workspace's
	// .ctxls.yaml that the user has not agreed to (ctxls/trust/grant
	// agrees).
	CodeConsent int64 = -32002
	// CodeResourceNotFound is MCP's code of a resource that does not
	// exist.
	CodeResourceNotFound int64 = -32002
)

// errorCodes are the codes of each kind of failure, by protocol; a kind a
// protocol has no code for is reported as the server's own failure.
var errorCodes = map[errkind.Kind][2]int64{
	errkind.Invalid:  {LSP: CodeInvalidParams, MCP: CodeInvalidParams},
	errkind.NotFound: {LSP: CodeInvalidParams, MCP: CodeResourceNotFound},
	errkind.Conflict: {LSP: CodeConflict},
	errkind.Consent:  {LSP: CodeConsent},
}

// ErrorCode returns the code by which p reports err, by the kind of
// failure err is (see package errkind), and false when p has none for it.
func ErrorCode(p Protocol, err error) (int64, bool) {
	c := errorCodes[errkind.Of(err)][p]
	return c, c != 0
}
