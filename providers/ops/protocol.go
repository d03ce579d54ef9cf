package ops

import (
	"encoding/json"
	"reflect"

	"github.com/ctxls/ctxls/providers/agentload"
)

// Method is a custom JSON-RPC method of the language server, named by its
// value: its params decode into Req and its result is Resp. The language
// server registers each with a handler of the same two types, which the
// compiler checks, and the VS Code extension's types of its requests are
// generated from Methods, so the three cannot disagree.
type Method[Req, Resp any] string

// Notification is a JSON-RPC notification the language server sends,
// named by its value, with params of type Params.
type Notification[Params any] string

// Spec is a method or notification as data: its name and the Go types of
// its params and, for a method, its result.
type Spec struct {
	Name   string
	Params reflect.Type
	// Result is nil for a notification.
	Result reflect.Type
}

// Spec returns m as data.
func (m Method[Req, Resp]) Spec() Spec {
	return Spec{Name: string(m), Params: reflect.TypeFor[Req](), Result: reflect.TypeFor[Resp]()}
}

// Spec returns n as data.
func (n Notification[Params]) Spec() Spec {
	return Spec{Name: string(n), Params: reflect.TypeFor[Params]()}
}

// ChainRunRequest is the params of ctxls/chain/run: the chain's request and the work-done token the language server reports
// its steps on with $/progress.
type ChainRunRequest struct {
	ChainRequest
	// WorkDoneToken is the LSP progress token, a string or an integer.
	WorkDoneToken json.RawMessage `json:"workDoneToken,omitempty"`
}

// ChainResumeRequest is the params of ctxls/chain/resume: what of a
// ChainRequest resuming reads, and the work-done token.
type ChainResumeRequest struct {
	// SessionID is the execution whose chain continues.
	SessionID string `json:"sessionId"`
	// Model names the configured model whose context window the prompts
	// are fitted to (default: the configuration's defaultModel).
	Model string `json:"model,omitempty"`
	// ExecutorCommand is the executor's command line as the client showed
	// it to the user, as in a ChainRequest.
	ExecutorCommand []string `json:"executorCommand,omitempty"`
	// WorkDoneToken is the LSP progress token, a string or an integer.
	WorkDoneToken json.RawMessage `json:"workDoneToken,omitempty"`
}

// ChainRunRequest returns r as the request it resumes with.
func (r ChainResumeRequest) ChainRunRequest() ChainRunRequest {
	return ChainRunRequest{
		ChainRequest:  ChainRequest{SessionID: r.SessionID, Model: r.Model, ExecutorCommand: r.ExecutorCommand},
		WorkDoneToken: r.WorkDoneToken,
	}
}

// The custom methods of the language server.
const (
	// MethodCommands lists every command with its references and their
	// total token cost.
	MethodCommands Method[Empty, CommandsResponse] = "ctxls/commands"
	// MethodDocumentCost returns the references of a document, as the
	// editor has it, and what loading them costs.
	MethodDocumentCost Method[DocumentCostRequest, DocumentCostResponse] = "ctxls/documentCost"
	// MethodSessionCost returns what a session of an agent loads from the workspace.
	MethodSessionCost Method[SessionCostRequest, *agentload.Cost] = "ctxls/sessionCost"

	// MethodInventory lists the topics, skills, commands, subagents and rules.
	MethodInventory Method[InventoryRequest, InventoryResponse] = "ctxls/inventory"
	// MethodInventorySearch searches the inventory.
	MethodInventorySearch Method[InventorySearchRequest, InventorySearchResponse] = "ctxls/inventory/search"
	// MethodCatalog lists the topics of the library.
	MethodCatalog Method[CatalogRequest, CatalogResponse] = "ctxls/catalog"
	// MethodDomainIndex returns the index of a domain.
	MethodDomainIndex Method[DomainRequest, DomainIndex] = "ctxls/domainIndex"
	// MethodLoadingProtocol returns the library's loading protocol.
	MethodLoadingProtocol Method[Empty, LoadingProtocol] = "ctxls/loadingProtocol"
	// MethodSearch searches the topics.
	MethodSearch Method[SearchRequest, SearchResponse] = "ctxls/search"
	// MethodAlwaysLoadFiles lists the files of a domain that are always loaded.
	MethodAlwaysLoadFiles Method[DomainRequest, ContextFileList] = "ctxls/alwaysLoadFiles"
	// MethodDetectProjectType matches a project against the detection rules.
	MethodDetectProjectType Method[DetectRequest, DetectionResult] = "ctxls/detectProjectType"
	// MethodConditionalContext lists the topics detection calls for.
	MethodConditionalContext Method[ConditionalRequest, ContextFileList] = "ctxls/conditionalContext"
	// MethodCrossDomainContext lists the topics of other domains whose triggers hold.
	MethodCrossDomainContext Method[CrossDomainRequest, ContextFileList] = "ctxls/crossDomainContext"
	// MethodReference returns the metadata of one file without its content.
	MethodReference Method[ReferenceRequest, ReferenceResponse] = "ctxls/reference"
	// MethodMaterialize loads a topic's body without frontmatter.
	MethodMaterialize Method[MaterializeRequest, FileResponse] = "ctxls/materialize"
	// MethodMaterializeSections loads some sections of a topic.
	MethodMaterializeSections Method[MaterializeSectionsRequest, SectionsResponse] = "ctxls/materializeSections"
	// MethodInvalidate drops entries of the context provider's caches.
	MethodInvalidate Method[InvalidateRequest, InvalidateResponse] = "ctxls/invalidate"

	// MethodExecutionCreate creates an execution.
	MethodExecutionCreate Method[CreateExecutionRequest, ExecutionResponse] = "ctxls/execution/create"
	// MethodExecutionGetOrCreate returns a project's current execution, created when there is none.
	MethodExecutionGetOrCreate Method[ProjectRequest, ExecutionResponse] = "ctxls/execution/getOrCreate"
	// MethodExecutionStartCommand records the start of a command.
	MethodExecutionStartCommand Method[CommandRequest, CommandResponse] = "ctxls/execution/startCommand"
	// MethodExecutionCompleteCommand records the end of a command.
	MethodExecutionCompleteCommand Method[CommandRequest, CommandResponse] = "ctxls/execution/completeCommand"
	// MethodExecutionRecordContextLoad records a topic loaded in an execution.
	MethodExecutionRecordContextLoad Method[ContextLoadRequest, RecordResponse] = "ctxls/execution/recordContextLoad"
	// MethodExecutionGetCachedContext returns a topic an execution loaded.
	MethodExecutionGetCachedContext Method[ContextLoadRequest, CachedResponse] = "ctxls/execution/getCachedContext"
	// MethodExecutionRecordMemoryLoad records a memory entry loaded in an execution.
	MethodExecutionRecordMemoryLoad Method[MemoryLoadRequest, RecordResponse] = "ctxls/execution/recordMemoryLoad"
	// MethodExecutionGetCachedMemory returns a memory entry an execution loaded.
	MethodExecutionGetCachedMemory Method[MemoryLoadRequest, CachedResponse] = "ctxls/execution/getCachedMemory"
	// MethodExecutionSetSharedData sets a value shared by an execution's commands.
	MethodExecutionSetSharedData Method[SharedDataRequest, SharedDataResponse] = "ctxls/execution/setSharedData"
	// MethodExecutionGetSharedData returns a value shared by an execution's commands.
	MethodExecutionGetSharedData Method[SharedDataRequest, SharedDataResponse] = "ctxls/execution/getSharedData"
	// MethodExecutionGetPreviousCommand returns the latest attempt of a command, or null.
	MethodExecutionGetPreviousCommand Method[PreviousCommandRequest, *CommandResponse] = "ctxls/execution/getPreviousCommand"
	// MethodExecutionList lists the executions.
	MethodExecutionList Method[ExecutionListRequest, ExecutionListResponse] = "ctxls/execution/list"
	// MethodExecutionGet returns an execution, the current one without a session ID.
	MethodExecutionGet Method[SessionRequest, ExecutionResponse] = "ctxls/execution/get"
	// MethodExecutionSetCurrent makes an execution the current one.
	MethodExecutionSetCurrent Method[SessionRequest, SetCurrentResponse] = "ctxls/execution/setCurrent"
	// MethodExecutionDelete deletes an execution in two steps.
	MethodExecutionDelete Method[DeleteExecutionRequest, DeleteExecutionResponse] = "ctxls/execution/delete"

	// MethodChainList lists the named chains and the executor.
	MethodChainList Method[Empty, ChainsResponse] = "ctxls/chain/list"
	// MethodChainPreview previews a chain's prompts without running it.
	MethodChainPreview Method[ChainRequest, ChainResponse] = "ctxls/chain/preview"
	// MethodChainRun runs a chain, reporting its steps on the work-done token.
	MethodChainRun Method[ChainRunRequest, ChainResponse] = "ctxls/chain/run"
	// MethodChainResume resumes a chain, reporting its steps on the work-done token.
	MethodChainResume Method[ChainResumeRequest, ChainResponse] = "ctxls/chain/resume"
	// MethodChainCancel stops the chain running in an execution, or every
	// chain when the session ID is empty.
	MethodChainCancel Method[SessionRequest, CancelChainResponse] = "ctxls/chain/cancel"

	// MethodTrust says whether the exec executor in effect may run.
	MethodTrust Method[Empty, TrustResponse] = "ctxls/trust"
	// MethodTrustGrant agrees to the exec executor of the workspace.
	MethodTrustGrant Method[TrustGrantRequest, TrustResponse] = "ctxls/trust/grant"
	// MethodTrustRevoke withdraws the workspace's grant.
	MethodTrustRevoke Method[Empty, TrustRevokeResponse] = "ctxls/trust/revoke"

	// MethodHistoryAppend appends a message to a conversation.
	MethodHistoryAppend Method[AppendMessageRequest, MessageResponse] = "ctxls/history/append"
	// MethodHistoryList returns a page of a conversation's messages.
	MethodHistoryList Method[HistoryListRequest, HistoryListResponse] = "ctxls/history/list"
	// MethodHistoryConversations lists the conversations.
	MethodHistoryConversations Method[Empty, ConversationsResponse] = "ctxls/history/conversations"
	// MethodHistoryBuildContext builds the history a conversation's next
	// prompt would receive, within a model's budget.
	MethodHistoryBuildContext Method[BuildHistoryRequest, BuildHistoryResponse] = "ctxls/history/buildContext"
	// MethodHistoryDelete deletes a conversation in two steps.
	MethodHistoryDelete Method[DeleteConversationRequest, DeleteConversationResponse] = "ctxls/history/delete"
)

// Methods returns the custom methods of the language server, each once.
func Methods() []Spec {
	return []Spec{
		MethodCommands.Spec(),
		MethodDocumentCost.Spec(),
		MethodSessionCost.Spec(),

		MethodInventory.Spec(),
		MethodInventorySearch.Spec(),
		MethodCatalog.Spec(),
		MethodDomainIndex.Spec(),
		MethodLoadingProtocol.Spec(),
		MethodSearch.Spec(),
		MethodAlwaysLoadFiles.Spec(),
		MethodDetectProjectType.Spec(),
		MethodConditionalContext.Spec(),
		MethodCrossDomainContext.Spec(),
		MethodReference.Spec(),
		MethodMaterialize.Spec(),
		MethodMaterializeSections.Spec(),
		MethodInvalidate.Spec(),

		MethodExecutionCreate.Spec(),
		MethodExecutionGetOrCreate.Spec(),
		MethodExecutionStartCommand.Spec(),
		MethodExecutionCompleteCommand.Spec(),
		MethodExecutionRecordContextLoad.Spec(),
		MethodExecutionGetCachedContext.Spec(),
		MethodExecutionRecordMemoryLoad.Spec(),
		MethodExecutionGetCachedMemory.Spec(),
		MethodExecutionSetSharedData.Spec(),
		MethodExecutionGetSharedData.Spec(),
		MethodExecutionGetPreviousCommand.Spec(),
		MethodExecutionList.Spec(),
		MethodExecutionGet.Spec(),
		MethodExecutionSetCurrent.Spec(),
		MethodExecutionDelete.Spec(),

		MethodChainList.Spec(),
		MethodChainPreview.Spec(),
		MethodChainRun.Spec(),
		MethodChainResume.Spec(),
		MethodChainCancel.Spec(),

		MethodTrust.Spec(),
		MethodTrustGrant.Spec(),
		MethodTrustRevoke.Spec(),

		MethodHistoryAppend.Spec(),
		MethodHistoryList.Spec(),
		MethodHistoryConversations.Spec(),
		MethodHistoryBuildContext.Spec(),
		MethodHistoryDelete.Spec(),
	}
}

// The notifications the language server sends so that the client
// refreshes its views when something changed instead of polling.
const (
	// NotifyLibraryChanged: topics, commands or the configuration changed
	// on disk or in the settings, or a document was saved.
	NotifyLibraryChanged Notification[Empty] = "ctxls/libraryChanged"
	// NotifyExecutionsChanged: the server created, recorded, ran, made
	// current or deleted an execution.
	NotifyExecutionsChanged Notification[Empty] = "ctxls/executionsChanged"
	// NotifyAgentFilesChanged: agent files changed on disk, or in the
	// editor and not saved, or the configuration changed; the session
	// costs are stale.
	NotifyAgentFilesChanged Notification[Empty] = "ctxls/agentFilesChanged"
)

// Notifications returns the notifications the language server sends,
// each once.
func Notifications() []Spec {
	return []Spec{
		NotifyLibraryChanged.Spec(),
		NotifyExecutionsChanged.Spec(),
		NotifyAgentFilesChanged.Spec(),
	}
}
