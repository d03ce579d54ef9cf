// Types and method names of the custom JSON-RPC methods the ctxls server
// offers next to LSP: the field names and shapes the server sends. Fields
// are optional only where the server omits them.

/** Methods of the ctxls server used by the extension. */
export const Methods = {
  catalog: 'ctxls/catalog',
  search: 'ctxls/search',
  commands: 'ctxls/commands',
  documentCost: 'ctxls/documentCost',
  chainList: 'ctxls/chain/list',
  chainPreview: 'ctxls/chain/preview',
  chainRun: 'ctxls/chain/run',
  chainResume: 'ctxls/chain/resume',
  chainCancel: 'ctxls/chain/cancel',
  executionList: 'ctxls/execution/list',
  executionGet: 'ctxls/execution/get',
  executionSetCurrent: 'ctxls/execution/setCurrent',
  executionDelete: 'ctxls/execution/delete',
  historyList: 'ctxls/history/list',
} as const;

/** A warning attached to a result. */
export interface Warning {
  message: string;
  code?: string;
}

/** Shape of every list result; `items` is never null. */
export interface ListResult<T> {
  items: T[];
  warnings: Warning[];
}

/** Loading strategies of SPEC §1. */
export type LoadingStrategy = 'always' | 'onDemand' | 'lazy' | string;

/** Topic types of SPEC §1. */
export type TopicType = 'always' | 'framework' | 'reference' | 'pattern' | 'index' | 'detection' | string;

/** A section of a topic. */
export interface SectionInfo {
  name: string;
  /** Declared cost; absent when the frontmatter declares none. */
  estimatedTokens?: number;
  measuredTokens: number;
  keywords?: string[];
}

/** One entry of `ctxls/catalog` (ContextCatalogEntry), also the reference inside search results. */
export interface CatalogItem {
  /** `domain/stem` (or `domain/sub/stem`). */
  id: string;
  /** Owning domain; empty for files directly in a context root. */
  domain: string;
  title: string;
  type: TopicType;
  /** Declared cost from frontmatter; absent when none is declared. */
  estimatedTokens?: number;
  /** Cost measured with the configured tokenizer. */
  measuredTokens: number;
  loadingStrategy: LoadingStrategy;
  /** Absolute file path. */
  path: string;
  /** `file://` URI of the same file. */
  uri?: string;
  tags?: string[];
  version?: string;
  lastUpdated?: string;
  maintainedFor?: string;
  sections?: SectionInfo[];
  crossDomainTriggers?: string[];
  detectionTriggers?: string[];
}

export interface CatalogParams {
  domain?: string;
}

export type CatalogResult = ListResult<CatalogItem>;

export interface SearchParams {
  query: string;
  domain?: string;
}

export interface SearchItem {
  reference: CatalogItem;
  /** Relevance in 0..1: the share of the query's words that matched, weighted by field. */
  relevance: number;
  /** Which fields matched: title, tags, id, keywords, content… */
  matchedOn: string[];
}

export type SearchResult = ListResult<SearchItem>;

/** A command found under a command root (`ctxls/commands`). */
export interface CommandInfo {
  name: string;
  path: string;
  uri: string;
  description?: string;
  /** References the command makes, in key form (`domain:topic`, `domain:topic#Section`). */
  references: string[];
  /** Total token cost of the command's references. */
  tokens: number;
  /** Number of references that do not resolve. */
  unresolved?: number;
}

export type CommandsResult = ListResult<CommandInfo>;

/** A named chain of `.ctxls.yaml` (`ctxls/chain/list`). */
export interface NamedChain {
  name: string;
  commands: string[];
}

export type ChainListResult = ListResult<NamedChain> & {
  /** The executor chain steps run with (servers before it was reported: absent). */
  executor?: { kind: string; command: string[] };
};

/** One reference of a document (`ctxls/documentCost`). */
export interface DocumentCostItem {
  /** Key form of the reference: `python:fastapi_patterns`, `python:x#Section`, `python`. */
  reference: string;
  /** Form the reference was written in (key, call, path, …). */
  form: string;
  domain?: string;
  topic?: string;
  section?: string;
  title?: string;
  /** Measured cost of what the reference loads; 0 when it does not resolve. */
  tokens: number;
  /** Whether `tokens` is part of the total (a topic referred to twice counts once). */
  counted: boolean;
  resolved: boolean;
  path?: string;
  /** Zero-based line of the reference in the document. */
  line: number;
  /** Why the reference does not resolve. */
  message?: string;
}

export interface DocumentCostParams {
  uri: string;
}

export interface DocumentCostResult {
  uri: string;
  total: number;
  items: DocumentCostItem[];
  warnings: Warning[];
}

export interface ChainParams {
  commands: string[];
  input: string;
  /** A model of `.ctxls.yaml`'s `models`; its context window bounds each prompt (default: `defaultModel`). */
  model?: string;
}

export interface ChainRunParams extends ChainParams {
  sessionId?: string;
  projectName?: string;
  workDoneToken?: string | number;
}

/** One context topic (or some sections of one) that a chain step loads or the budget left out. */
export interface StepContextItem {
  /** `domain:topic` or `domain:topic#Section`. */
  reference: string;
  id: string;
  domain: string;
  topic: string;
  /** Sections loaded (comma-separated); absent for the whole topic. */
  section?: string;
  title?: string;
  kind?: string;
  loadingStrategy?: LoadingStrategy;
  tokens: number;
  /** True when an earlier step of the same session loaded it already. */
  cached: boolean;
  /** `cache` or `materialized`; absent for dropped items. */
  source?: string;
  /** Why it was loaded (always-load, framework, reference, section, cross-domain, lookup) or dropped. */
  reason: string;
}

/** One step of a chain preview or run. */
export interface ChainStep {
  command: string;
  /** Position in the chain (0-based). */
  index: number;
  /** Position among the execution's recorded steps (runs only). */
  step: number;
  path?: string;
  /** preview in previews; success, partial, failed, interrupted in runs; pending for a step not reached. */
  status?: string;
  attempts?: number;
  context: StepContextItem[];
  /** Context left out by the budget. */
  dropped: StepContextItem[];
  cacheHits: number;
  commandTokens: number;
  contextTokens: number;
  sharedDataTokens: number;
  historyTokens: number;
  inputTokens: number;
  /** Total tokens of the assembled prompt. */
  promptTokens: number;
  /** The assembled prompt (previews only). */
  prompt?: string;
  output?: string;
  outputBytes?: number;
  exitCode?: number;
  elapsedMs: number;
  /** Why the step failed or was interrupted. */
  reason?: string;
  /** The step finished in an earlier run and was not run again. */
  skipped?: boolean;
  /** What the prompt lost to fit the model's context window. */
  cuts?: PromptCut[];
  warnings: string[];
}

/** One cut made to fit a prompt into the model's context window. */
export interface PromptCut {
  action: 'dropped' | 'truncated';
  part: 'history' | 'section';
  messageId?: number;
  role?: string;
  section?: string;
  before: number;
  after: number;
}

/** The model whose window and history share bound a chain's prompts. */
export interface ModelBudget {
  model: string;
  contextWindow: number;
  historyBudget: number;
  /** No model is configured: a stand-in was used. */
  fallback?: boolean;
}

/** Result of `ctxls/chain/preview`, `…/run` and `…/resume`. */
export interface ChainResult {
  /** The execution (runs and resumes). */
  sessionId?: string;
  /** State of the execution after the run. */
  state?: string;
  runId?: string;
  /** Kind of executor that ran the steps: preview or exec. */
  executor: string;
  steps: ChainStep[];
  totalTokens: number;
  cacheHits: number;
  budget: { files: number; tokens: number };
  /** The model the prompts were fitted to. */
  model?: ModelBudget;
  warnings: Warning[];
}

export type ChainPreviewResult = ChainResult;
export type ChainRunResult = ChainResult;

/** Result of `ctxls/chain/cancel`: the executions whose chains were stopped. */
export interface ChainCancelResult {
  cancelled: string[];
  warnings: Warning[];
}

export interface SessionParams {
  sessionId: string;
}

/** One attempt of a command (CommandExecution of the seed interface). */
export interface CommandExecution {
  command: string;
  /** running, success, partial, failed, interrupted. */
  status: string;
  /** In commandHistory: the number of attempts made of the step. */
  attempts: number;
  /** 0-based position of the command in the execution. */
  step: number;
  startedAt: string;
  completedAt: string | null;
  contextLoaded: string[] | null;
  memoryUpdated?: string[] | null;
  skillsInvoked?: string[] | null;
  inputs?: Record<string, unknown> | null;
  outputs?: Record<string, unknown> | null;
}

/** Step counts of an execution. */
export interface ExecutionProgress {
  currentCommand: string;
  commandsCompleted: number;
  commandsFailed: number;
  commandsTotal: number;
}

/**
 * An execution: the summary of `ctxls/execution/list` items (which carry
 * `created`) or the full ExecutionState of `ctxls/execution/get` (which
 * carries `startedAt`, `commandHistory`, `sharedData`, `plan`).
 */
export interface Execution {
  sessionId: string;
  projectName?: string;
  projectType?: string;
  /** new, running, completed, failed, interrupted. */
  state: string;
  isCurrent: boolean;
  summary?: ExecutionProgress;
  /** Creation time (list summaries). */
  created?: string;
  /** Start time (full record). */
  startedAt?: string;
  /** Conversation holding the execution's messages. */
  conversationId?: string;
  /** The chain this execution runs: its commands and input. */
  plan?: { commands: string[]; input: string } | null;
  /** One entry per step, the latest attempt of each. */
  commandHistory?: CommandExecution[] | null;
  sharedData?: Record<string, unknown> | null;
  /** `domain:topic` → content loaded. */
  loadedContext?: Record<string, string> | null;
  loadedMemory?: Record<string, string> | null;
  warnings?: Warning[];
}

export interface ExecutionListResult extends ListResult<Execution> {
  /** Session id of the current execution; empty when there is none. */
  current: string;
}

export interface ExecutionGetParams {
  sessionId?: string;
}

export interface ExecutionDeleteParams {
  sessionId: string;
  confirmToken?: string;
}

export interface ExecutionDeleteResult {
  sessionId: string;
  deleted: boolean;
  /** Present on the first call: pass it back to delete. */
  confirmToken?: string;
  /** When the confirm token expires (RFC 3339). */
  expiresAt?: string;
  message: string;
  warnings: Warning[];
}

/** One persisted message (SPEC §6). */
export interface HistoryMessage {
  id: number;
  conversationId: string;
  /** user, assistant, system, tool. */
  role: string;
  content: string;
  mode: string;
  runId?: string;
  command?: string;
  createdAt: string;
  /** Measured token count of the content. */
  tokens: number;
}

export interface HistoryListParams {
  conversationId: string;
  runId?: string;
  limit?: number;
  /** Page to messages older than this id. */
  before?: number;
}

/** A page of messages, oldest first; `more` when older ones exist before the first item. */
export interface HistoryListResult extends ListResult<HistoryMessage> {
  more: boolean;
}

/** Text of a warning: result warnings are objects, chain step warnings plain strings. */
export function warningText(w: Warning | string): string {
  return typeof w === 'string' ? w : w.message;
}

/** Items of a list result; empty when the request failed (undefined). */
export function itemsOf<T>(r: Pick<ListResult<T>, 'items'> | null | undefined): T[] {
  return Array.isArray(r?.items) ? (r!.items as T[]) : [];
}
