// Builds the context browser's tree from `ctxls/inventory`: the topics
// grouped by domain, then a group for each other kind (skills, commands,
// subagents, rules). No `vscode` import: unit-tested.

import type { InventoryEntry, InventoryResult } from './protocol';
import { escapeMarkdown, formatCost, formatTokens, isAlwaysLoad, topicIcon } from './format';

/** Label of the group holding files that sit directly in a context root. */
export const LIBRARY_GROUP = '(library)';

/** The kinds other than topics, in the order the tree shows their groups. */
export const AGENT_KINDS = [
  { kind: 'skill', label: 'Skills', one: 'skill', many: 'skills', icon: 'sparkle' },
  { kind: 'command', label: 'Commands', one: 'command', many: 'commands', icon: 'terminal' },
  { kind: 'subagent', label: 'Subagents', one: 'subagent', many: 'subagents', icon: 'robot' },
  { kind: 'rule', label: 'Rules', one: 'rule', many: 'rules', icon: 'law' },
] as const;

/** A topic, skill, command, subagent or rule: a leaf of the tree. */
export interface EntryNode {
  kind: 'entry';
  /** The entry's kind: topic, skill, command, subagent or rule. */
  entryKind: string;
  /** Stable identity for the tree (kind, reference and path). */
  key: string;
  label: string;
  description: string;
  tooltip: string;
  icon: string;
  /** What `load_context` takes: `domain:topic`, a skill's name, a file's path. */
  reference: string;
  /** Relative to the workspace, with forward slashes. */
  path: string;
  alwaysLoad: boolean;
  tokens: number;
  entry: InventoryEntry;
}

/** A domain of topics, or the group of one other kind. */
export interface GroupNode {
  kind: 'group';
  /** topic for a domain, else the kind of the group's entries. */
  entryKind: string;
  key: string;
  label: string;
  description: string;
  tooltip: string;
  icon: string;
  tokens: number;
  alwaysLoadTokens: number;
  children: EntryNode[];
}

export type ContextNode = GroupNode | EntryNode;

/** The tree of an inventory and what its view's description says. */
export interface ContextTree {
  groups: GroupNode[];
  /** Totals of what the tree lists; undefined when it lists nothing. */
  summary: string | undefined;
  /** The tokenizer the figures are counted in, as the server names it. */
  tokenizer: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** `12 tok (o200k_base)`: a count with the tokenizer it is counted in. */
function tokensIn(n: number, tokenizer: string): string {
  return tokenizer ? `${formatTokens(n)} (${tokenizer})` : formatTokens(n);
}

/** Domain of a topic entry: the part of its reference before the colon; "" for a root-level file. */
export function entryDomain(e: Pick<InventoryEntry, 'reference'>): string {
  const colon = e.reference.indexOf(':');
  return colon > 0 ? e.reference.slice(0, colon) : '';
}

/**
 * Name of an entry in its group: a topic's name inside its domain, a
 * skill's name, else the file name without extension (its folder's when
 * the file is named for its kind, as commands/test/COMMAND.md).
 */
export function entryLabel(e: Pick<InventoryEntry, 'kind' | 'reference' | 'path'>): string {
  if (e.kind === 'topic') {
    const domain = entryDomain(e);
    return domain ? e.reference.slice(domain.length + 1) : e.reference;
  }
  const parts = e.path.split('/');
  if (e.kind === 'skill' && e.reference !== e.path) {
    return e.reference;
  }
  const base = parts[parts.length - 1].replace(/\.[^.]*$/, '');
  if (parts.length > 1 && (e.kind === 'skill' || (base !== '' && base === base.toUpperCase()))) {
    return parts[parts.length - 2];
  }
  return base || e.path;
}

/** Rank used to put index and detection files first inside a domain. */
function typeRank(e: InventoryEntry): number {
  if (e.type === 'index') {
    return 0;
  }
  if (e.type === 'detection') {
    return 1;
  }
  if (isAlwaysLoad(e)) {
    return 2;
  }
  return 3;
}

/** Builds the leaf of one entry, counted in tokenizer. */
export function entryNode(e: InventoryEntry, tokenizer: string): EntryNode {
  const label = entryLabel(e);
  const parts: string[] = [];
  let icon: string;
  if (e.kind === 'topic') {
    parts.push(formatCost({ measuredTokens: e.tokens, estimatedTokens: e.declaredTokens }));
    if (e.type) {
      parts.push(e.type);
    }
    if (e.loadingStrategy) {
      parts.push(e.loadingStrategy);
    }
    icon = topicIcon(e);
  } else {
    parts.push(formatTokens(e.tokens));
    // A title that only repeats the file's name says nothing more.
    if (e.title && e.title !== label && e.title !== e.path.split('/').pop()) {
      parts.push(e.title);
    }
    icon = AGENT_KINDS.find((k) => k.kind === e.kind)?.icon ?? 'file';
  }
  return {
    kind: 'entry',
    entryKind: e.kind,
    key: `${e.kind}:${e.reference}:${e.path}`,
    label,
    description: parts.join(' · '),
    tooltip: entryTooltip(e, tokenizer),
    icon,
    reference: e.reference,
    path: e.path,
    alwaysLoad: e.kind === 'topic' && isAlwaysLoad(e),
    tokens: e.tokens,
    entry: e,
  };
}

/** Markdown tooltip of an entry. */
export function entryTooltip(e: InventoryEntry, tokenizer: string): string {
  const lines: string[] = [];
  lines.push(`**${escapeMarkdown(e.title || entryLabel(e))}**`);
  lines.push('');
  lines.push(`\`${e.reference}\``);
  lines.push('');
  const rows: Array<[string, string]> = [];
  rows.push([e.kind === 'topic' ? 'Measured' : 'Tokens', tokensIn(e.tokens, tokenizer)]);
  if (typeof e.declaredTokens === 'number' && e.declaredTokens > 0) {
    rows.push(['Declared', formatTokens(e.declaredTokens)]);
  }
  if (e.type) {
    rows.push(['Type', e.type]);
  }
  if (e.loadingStrategy) {
    rows.push(['Loading', e.loadingStrategy]);
  }
  rows.push(['Kind', e.kind]);
  for (const [k, v] of rows) {
    lines.push(`${k}: ${escapeMarkdown(v)}  `);
  }
  if (e.path) {
    lines.push('');
    lines.push(escapeMarkdown(e.path));
  }
  return lines.join('\n');
}

/** True for an entry the tree can show: a known kind, a reference and a path. */
function wellFormed(e: InventoryEntry | null | undefined): e is InventoryEntry {
  return (
    !!e &&
    typeof e.reference === 'string' &&
    e.reference !== '' &&
    typeof e.path === 'string' &&
    typeof e.kind === 'string' &&
    (e.kind === 'topic' || AGENT_KINDS.some((k) => k.kind === e.kind))
  );
}

/**
 * Builds the tree of an inventory. Domains come first, sorted by name with
 * the root-level group last; inside a domain, index and detection files
 * come first, then always-load topics, then the rest by name. Then one
 * group per other kind that has entries, in the order of AGENT_KINDS,
 * each sorted by name. Malformed and repeated entries are skipped; the
 * summary totals what is left.
 */
export function buildContextTree(result: Partial<InventoryResult> | null | undefined): ContextTree {
  const tokenizer = typeof result?.tokenizer === 'string' ? result.tokenizer : '';
  const entries = Array.isArray(result?.entries) ? result.entries : [];
  const byGroup = new Map<string, InventoryEntry[]>();
  const seen = new Set<string>();
  for (const e of entries) {
    if (!wellFormed(e)) {
      continue;
    }
    const identity = `${e.kind}\u0000${e.reference}\u0000${e.path}`;
    if (seen.has(identity)) {
      continue;
    }
    seen.add(identity);
    const group = e.kind === 'topic' ? `domain:${entryDomain(e)}` : `kind:${e.kind}`;
    let list = byGroup.get(group);
    if (!list) {
      list = [];
      byGroup.set(group, list);
    }
    list.push(e);
  }

  const domains: GroupNode[] = [];
  for (const [key, list] of byGroup) {
    if (!key.startsWith('domain:')) {
      continue;
    }
    const domain = key.slice('domain:'.length);
    const children = list.map((e) => entryNode(e, tokenizer));
    children.sort(
      (a, b) => typeRank(a.entry) - typeRank(b.entry) || a.label.localeCompare(b.label) || a.path.localeCompare(b.path),
    );
    const label = domain || LIBRARY_GROUP;
    domains.push(group(key, 'topic', label, 'folder-library', children, 'topic', 'topics', tokenizer));
  }
  domains.sort((a, b) => {
    const ar = a.label === LIBRARY_GROUP ? 1 : 0;
    const br = b.label === LIBRARY_GROUP ? 1 : 0;
    return ar - br || a.label.localeCompare(b.label);
  });

  const groups = [...domains];
  for (const k of AGENT_KINDS) {
    const list = byGroup.get(`kind:${k.kind}`);
    if (!list) {
      continue;
    }
    const children = list.map((e) => entryNode(e, tokenizer));
    children.sort((a, b) => a.label.localeCompare(b.label) || a.path.localeCompare(b.path));
    // Two files of one name (a rule for Claude and one for Cursor) are told
    // apart by their folders.
    for (const c of children) {
      if (children.some((o) => o !== c && o.label === c.label)) {
        const dir = c.path.split('/').slice(0, -1).join('/');
        c.description = `${c.description} · ${dir || '.'}`;
      }
    }
    groups.push(group(`kind:${k.kind}`, k.kind, k.label, k.icon, children, k.one, k.many, tokenizer));
  }
  return { groups, summary: treeSummary(groups, tokenizer), tokenizer };
}

function group(
  key: string,
  entryKind: string,
  label: string,
  icon: string,
  children: EntryNode[],
  one: string,
  many: string,
  tokenizer: string,
): GroupNode {
  const tokens = children.reduce((sum, c) => sum + c.tokens, 0);
  const alwaysLoadTokens = children.reduce((sum, c) => sum + (c.alwaysLoad ? c.tokens : 0), 0);
  const count = plural(children.length, one, many);
  return {
    kind: 'group',
    entryKind,
    key,
    label,
    description: `${count} · ${formatTokens(tokens)}`,
    tooltip:
      `**${escapeMarkdown(label)}**\n\n${count}, ${escapeMarkdown(tokensIn(tokens, tokenizer))} in all` +
      (alwaysLoadTokens > 0 ? `, ${formatTokens(alwaysLoadTokens)} always loaded` : ''),
    icon,
    tokens,
    alwaysLoadTokens,
    children,
  };
}

/**
 * Summarizes a tree for the view's description: "4 domains · 29 topics ·
 * 2 skills · 5 commands · 21,810 tok (o200k_base)". The group of
 * root-level files is not a domain (ctxls check does not count it as one),
 * but its topics are topics; kinds with no entries are not named.
 */
export function treeSummary(groups: readonly GroupNode[], tokenizer = ''): string | undefined {
  if (groups.length === 0) {
    return undefined;
  }
  const domains = groups.filter((g) => g.key.startsWith('domain:'));
  const parts: string[] = [];
  if (domains.length > 0) {
    const named = domains.filter((d) => d.key !== 'domain:').length;
    const topics = domains.reduce((n, d) => n + d.children.length, 0);
    parts.push(plural(named, 'domain', 'domains'), plural(topics, 'topic', 'topics'));
  }
  for (const k of AGENT_KINDS) {
    const g = groups.find((x) => x.key === `kind:${k.kind}`);
    if (g) {
      parts.push(plural(g.children.length, k.one, k.many));
    }
  }
  parts.push(tokensIn(groups.reduce((n, g) => n + g.tokens, 0), tokenizer));
  return parts.join(' · ');
}
