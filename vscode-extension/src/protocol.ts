// Types of the custom JSON-RPC methods the ctxls server offers next to
// LSP: the generated ones (RequestMap gives each method's params and
// result) and the shapes the views take them in.

export * from './protocol.gen';
import type { ChainResult, ExecutionState, ExecutionSummary, ListResult, ModelBudget, Warning } from './protocol.gen';

/** Loading strategies of a topic. */
export type LoadingStrategy = 'always' | 'onDemand' | 'lazy' | string;

/** Topic types. */
export type TopicType = 'always' | 'framework' | 'reference' | 'pattern' | 'index' | 'detection' | string;

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

/** Text of a warning: result warnings are objects, chain step warnings plain strings. */
export function warningText(w: Warning | string): string {
  return typeof w === 'string' ? w : w.message;
}

/** Items of a list result; empty when the request failed (undefined). */
export function itemsOf<T>(r: Pick<ListResult<T>, 'items'> | null | undefined): T[] {
  return Array.isArray(r?.items) ? (r!.items as T[]) : [];
}
