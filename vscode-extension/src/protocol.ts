// Types and method names of the custom JSON-RPC methods the ctxls server
// offers next to LSP. Every field the extension does not strictly need is
// optional: the extension renders what it gets and skips what is missing.

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
  historyConversations: 'ctxls/history/conversations',
} as const;

/** A warning attached to a result: a plain string or an object with a message. */
export type Warning = string | { message?: string; code?: string; [key: string]: unknown };

/** Shape of every list result. */
export interface ListResult<T> {
  items?: T[] | null;
  warnings?: Warning[] | null;
}

/** Loading strategies of SPEC §1. */
export type LoadingStrategy = 'always' | 'onDemand' | 'lazy' | string;

/** Topic types of SPEC §1. */
export type TopicType = 'always' | 'framework' | 'reference' | 'pattern' | 'index' | 'detection' | string;

/** A section of a topic. */
export interface SectionInfo {
  name: string;
  estimatedTokens?: number;
  measuredTokens?: number;
  keywords?: string[];
}

/** One entry of `ctxls/catalog`, also the reference inside search results. */
export interface CatalogItem {
  /** `domain/stem` (or `domain/sub/stem`). */
  id: string;
  /** Owning domain; empty for files directly in a context root. */
  domain?: string;
  title?: string;
  type?: TopicType;
  /** Declared cost from frontmatter. */
  estimatedTokens?: number;
  /** Cost measured with the configured tokenizer. */
  measuredTokens?: number;
  loadingStrategy?: LoadingStrategy;
  /** Absolute file path. */
  path?: string;
  /** `file://` URI, when the server sends one in addition to or instead of `path`. */
  uri?: string;
  tags?: string[];
  version?: string;
  lastUpdated?: string;
  sections?: SectionInfo[];
  crossDomainTriggers?: string[];
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
  /** Relevance score; 0..1 or any positive number (higher is better). */
  relevance?: number;
  /** Which fields matched: title, tags, id, keywords, content… */
  matchedOn?: string[] | string;
}

export type SearchResult = ListResult<SearchItem>;

/** A command found under a command root (`ctxls/commands`). */
export interface CommandInfo {
  name: string;
  path?: string;
  description?: string;
  /** References the command makes (`domain:topic` strings or objects). */
  references?: Array<string | { reference?: string }>;
  /** Total token cost of the command's references. */
  tokens?: number;
}

export type CommandsResult = ListResult<CommandInfo>;

/** A named chain of `.ctxls.yaml` (`ctxls/chain/list`). */
export interface NamedChain {
  name: string;
  commands: string[];
}

export type ChainListResult = ListResult<NamedChain>;

/** One reference of a document (`ctxls/documentCost`). */
export interface DocumentCostItem {
  reference: string;
  domain?: string;
  topic?: string;
  section?: string;
  title?: string;
  tokens?: number;
  resolved?: boolean;
  path?: string;
  /** Zero-based line of the reference in the document, when known. */
  line?: number;
}

export interface DocumentCostParams {
  uri: string;
}

export interface DocumentCostResult {
  uri?: string;
  total?: number;
  items?: DocumentCostItem[] | null;
  warnings?: Warning[] | null;
}

export interface ChainParams {
  commands: string[];
  input: string;
}

export interface ChainRunParams extends ChainParams {
  sessionId?: string;
  projectName?: string;
  workDoneToken?: string | number;
}

/** One context topic of a chain step. */
export interface StepContextItem {
  /** `domain:topic` or `domain:topic#Section`. */
  reference?: string;
  id?: string;
  domain?: string;
  topic?: string;
  section?: string;
  title?: string;
  tokens?: number;
  /** True when an earlier step of the same session loaded it already. */
  cached?: boolean;
  /** Alternative spelling of `cached`. */
  cacheHit?: boolean;
  /** `cache` or `materialized`; also read as cache hit when `cache`. */
  source?: string;
  /** Why it was loaded: always-load, reference, cross-domain… */
  reason?: string;
  loadingStrategy?: LoadingStrategy;
}

/** One step of a chain preview or run. */
export interface ChainStep {
  command: string;
  index?: number;
  path?: string;
  status?: string;
  attempts?: number;
  context?: StepContextItem[] | null;
  /** Context left out by the budget. */
  dropped?: StepContextItem[] | null;
  cacheHits?: number;
  contextTokens?: number;
  commandTokens?: number;
  historyTokens?: number;
  sharedDataTokens?: number;
  inputTokens?: number;
  /** Total tokens of the assembled prompt. */
  promptTokens?: number;
  /** Alias some servers use for promptTokens. */
  totalTokens?: number;
  prompt?: string;
  output?: string;
  warnings?: Warning[] | null;
}

export interface ChainPreviewResult {
  steps?: ChainStep[] | null;
  /** Tolerated alias of steps. */
  items?: ChainStep[] | null;
  totalTokens?: number;
  cacheHits?: number;
  budget?: { files?: number; tokens?: number };
  warnings?: Warning[] | null;
}

export interface ChainRunResult extends ChainPreviewResult {
  sessionId?: string;
  state?: string;
  status?: string;
}

export interface SessionParams {
  sessionId: string;
}

/** A command inside an execution (CommandExecution of the seed interface). */
export interface CommandExecution {
  command: string;
  status?: string;
  attempts?: number;
  startedAt?: string;
  completedAt?: string | null;
  contextLoaded?: string[] | null;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  runId?: string;
}

/** An execution (ExecutionState of the seed interface plus management fields). */
export interface Execution {
  sessionId: string;
  projectName?: string;
  projectType?: string;
  startedAt?: string;
  updatedAt?: string;
  /** running, completed, failed, interrupted, cancelled, pending… */
  state?: string;
  /** Tolerated alias of state. */
  status?: string;
  current?: boolean;
  /** Alias of current used by the execution store. */
  isCurrent?: boolean;
  /** Creation time in list summaries. */
  created?: string;
  /** Conversation holding the execution's messages (defaults to sessionId). */
  conversationId?: string;
  /** Planned commands of the chain, in order. */
  chain?: string[];
  /** The chain plan: its commands and input. */
  plan?: { commands?: string[] | null; input?: string } | null;
  /** Step counts. */
  summary?: {
    currentCommand?: string;
    commandsCompleted?: number;
    commandsFailed?: number;
    commandsTotal?: number;
  } | null;
  commands?: CommandExecution[] | null;
  commandHistory?: CommandExecution[] | null;
  sharedData?: Record<string, unknown> | null;
  loadedContext?: Record<string, unknown> | string[] | null;
  warnings?: Warning[] | null;
}

export interface ExecutionListResult extends ListResult<Execution> {
  /** Session id of the current execution, when not flagged on the items. */
  current?: string | null;
  currentSessionId?: string | null;
}

export interface ExecutionGetParams {
  sessionId?: string;
}

export interface ExecutionDeleteParams {
  sessionId: string;
  confirmToken?: string;
}

export interface ExecutionDeleteResult {
  /** Present on the first call: pass it back to delete. */
  confirmToken?: string;
  /** Tolerated alias of confirmToken. */
  token?: string;
  deleted?: boolean;
  message?: string;
  warnings?: Warning[] | null;
}

/** One persisted message (SPEC §6). */
export interface HistoryMessage {
  id?: string | number;
  conversationId?: string;
  role: string;
  content: string;
  mode?: string;
  runId?: string;
  command?: string;
  createdAt?: string;
  tokens?: number;
}

export interface HistoryListParams {
  conversationId: string;
}

export type HistoryListResult = ListResult<HistoryMessage>;

/** Text of a warning, whatever its shape. */
export function warningText(w: Warning): string {
  if (typeof w === 'string') {
    return w;
  }
  if (w && typeof w.message === 'string') {
    return w.message;
  }
  return JSON.stringify(w);
}

/** Items of a list result, never null. */
export function itemsOf<T>(r: ListResult<T> | null | undefined): T[] {
  return Array.isArray(r?.items) ? (r!.items as T[]) : [];
}
