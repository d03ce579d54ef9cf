// Builders of server results with every field the server always sends,
// so that tests state only what they are about.

import type {
  ChainPreviewResult,
  ChainStep,
  CommandExecution,
  CommandInfo,
  DocumentCostItem,
  Execution,
  ExecutionDeleteResult,
  InventoryEntry,
  StepContextItem,
} from '../../src/protocol';

/**
 * An inventory entry; a topic's reference is `domain:name` of its id and
 * its path under context/, another kind's reference is its path.
 */
export function inventoryEntry(p: Partial<InventoryEntry> & { reference: string; kind?: string }): InventoryEntry {
  const kind = p.kind ?? 'topic';
  if (kind !== 'topic') {
    return { title: '', kind, tokens: 0, path: p.reference, ...p };
  }
  const colon = p.reference.indexOf(':');
  const id = colon > 0 ? `${p.reference.slice(0, colon)}/${p.reference.slice(colon + 1)}` : p.reference;
  return { title: '', kind, tokens: 0, id, path: `context/${id}.md`, type: 'reference', loadingStrategy: 'onDemand', ...p };
}

export function stepItem(p: Partial<StepContextItem> & { reference: string }): StepContextItem {
  const [domain, rest = ''] = p.reference.split(':');
  const [topic, section] = rest.split('#');
  return {
    id: `${domain}/${topic}`,
    domain,
    topic,
    ...(section ? { section } : {}),
    tokens: 0,
    cached: false,
    reason: 'reference',
    ...p,
  };
}

export function chainStep(p: Partial<ChainStep> & { command: string }): ChainStep {
  return {
    index: 0,
    step: 0,
    context: [],
    dropped: [],
    cacheHits: 0,
    commandTokens: 0,
    memory: [],
    memoryTokens: 0,
    contextTokens: 0,
    sharedDataTokens: 0,
    historyTokens: 0,
    inputTokens: 0,
    framingTokens: 0,
    promptTokens: 0,
    elapsedMs: 0,
    warnings: [],
    ...p,
  };
}

export function chainResult(p: Partial<ChainPreviewResult>): ChainPreviewResult {
  return {
    executor: 'preview',
    steps: [],
    totalTokens: 0,
    tokenizer: 'o200k_base',
    cacheHits: 0,
    budget: { files: 6, tokens: 16000 },
    warnings: [],
    ...p,
  };
}

export function execution(p: Partial<Execution> & { sessionId: string }): Execution {
  return { state: 'new', isCurrent: false, ...p };
}

export function commandExecution(p: Partial<CommandExecution> & { command: string }): CommandExecution {
  return {
    status: 'success',
    attempts: 1,
    step: 0,
    startedAt: '2026-01-01T10:00:00Z',
    completedAt: '2026-01-01T10:01:00Z',
    firstAttemptAt: '2026-01-01T10:00:00Z',
    lastAttemptAt: '2026-01-01T10:00:00Z',
    inputs: {},
    outputs: {},
    contextLoaded: [],
    memoryUpdated: [],
    skillsInvoked: [],
    ...p,
  };
}

export function costItem(p: Partial<DocumentCostItem> & { reference: string }): DocumentCostItem {
  return { form: 'key', tokens: 0, counted: true, resolved: true, line: 0, ...p };
}

export function commandInfo(p: Partial<CommandInfo> & { name: string }): CommandInfo {
  return {
    path: `/lib/commands/${p.name}.md`,
    uri: `file:///lib/commands/${p.name}.md`,
    references: [],
    tokens: 0,
    ...p,
  };
}

export function deleteResult(p: Partial<ExecutionDeleteResult> & { sessionId: string }): ExecutionDeleteResult {
  return { deleted: false, message: '', warnings: [], ...p };
}
