// Types and method names of the custom JSON-RPC methods the ctxls server
// offers next to LSP: the field names and shapes the server sends. Fields
// are optional only where the server omits them.

/** Methods of the ctxls server used by the extension. */
export const Methods = {
  inventory: 'ctxls/inventory',
  inventorySearch: 'ctxls/inventory/search',
  catalog: 'ctxls/catalog',
  search: 'ctxls/search',
  commands: 'ctxls/commands',
  documentCost: 'ctxls/documentCost',
  sessionCost: 'ctxls/sessionCost',
  chainList: 'ctxls/chain/list',
  chainPreview: 'ctxls/chain/preview',
  chainRun: 'ctxls/chain/run',
  chainResume: 'ctxls/chain/resume',
  chainCancel: 'ctxls/chain/cancel',
  trust: 'ctxls/trust',
  trustGrant: 'ctxls/trust/grant',
  executionList: 'ctxls/execution/list',
  executionGet: 'ctxls/execution/get',
  executionSetCurrent: 'ctxls/execution/setCurrent',
  executionDelete: 'ctxls/execution/delete',
  historyList: 'ctxls/history/list',
} as const;

/** Notifications the ctxls server sends when the client's views are stale. */
export const Notifications = {
  /** Topics, commands or the configuration changed on disk, or a document was saved. */
  libraryChanged: 'ctxls/libraryChanged',
  /** An execution was created, recorded, run, made current or deleted. */
  executionsChanged: 'ctxls/executionsChanged',
  /** Agent files changed on disk or in the editor, saved or not: session costs are stale. */
  agentFilesChanged: 'ctxls/agentFilesChanged',
} as const;

export * from './protocol.gen';
import type { ChainParams, ChainResult, ExecutionState, ExecutionSummary, ListResult, ModelBudget, Warning } from './protocol.gen';

/** Loading strategies of a topic. */
export type LoadingStrategy = 'always' | 'onDemand' | 'lazy' | string;

/** Topic types. */
export type TopicType = 'always' | 'framework' | 'reference' | 'pattern' | 'index' | 'detection' | string;

export interface ChainRunParams extends ChainParams {
  workDoneToken?: string | number;
}

/** A chain result as the views take it: `model` may be absent (servers before it was sent). */
export type ChainPreviewResult = Omit<ChainResult, 'model'> & { model?: ModelBudget };
export type ChainRunResult = ChainPreviewResult;

/**
 * An execution: the summary of `ctxls/execution/list` items (which carry
 * `created`) or the full state of `ctxls/execution/get` (which carries
 * `startedAt`, `commandHistory`, `sharedData`, `plan`).
 */
export type Execution = Pick<ExecutionSummary, 'sessionId' | 'state' | 'isCurrent'> &
  Partial<Omit<ExecutionSummary, 'sessionId' | 'state' | 'isCurrent'>> &
  Partial<Omit<ExecutionState, 'sessionId' | 'state' | 'isCurrent' | 'summary'>> & { warnings?: Warning[] };

export interface ExecutionGetParams {
  sessionId?: string;
}

/** Text of a warning: result warnings are objects, chain step warnings plain strings. */
export function warningText(w: Warning | string): string {
  return typeof w === 'string' ? w : w.message;
}

/** Items of a list result; empty when the request failed (undefined). */
export function itemsOf<T>(r: Pick<ListResult<T>, 'items'> | null | undefined): T[] {
  return Array.isArray(r?.items) ? (r!.items as T[]) : [];
}
