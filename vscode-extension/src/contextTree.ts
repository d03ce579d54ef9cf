// Builds the context browser's tree (domains → topics) from catalog items.
// No `vscode` import: unit-tested.

import type { CatalogItem } from './protocol';
import {
  costOf,
  domainOf,
  escapeMarkdown,
  formatCost,
  formatTokens,
  isAlwaysLoad,
  referenceOf,
  topicIcon,
  topicOf,
} from './format';

/** Label of the group holding files that sit directly in a context root. */
export const LIBRARY_GROUP = '(library)';

export interface TopicNode {
  kind: 'topic';
  /** Stable identity for the tree (the topic id plus path). */
  key: string;
  label: string;
  description: string;
  tooltip: string;
  icon: string;
  reference: string;
  path?: string;
  uri?: string;
  alwaysLoad: boolean;
  tokens?: number;
  item: CatalogItem;
}

export interface DomainNode {
  kind: 'domain';
  key: string;
  label: string;
  description: string;
  tooltip: string;
  tokens: number;
  alwaysLoadTokens: number;
  topics: TopicNode[];
}

export type ContextNode = DomainNode | TopicNode;

/** Rank used to put index and detection files first inside a domain. */
function typeRank(item: CatalogItem): number {
  if (item.type === 'index') {
    return 0;
  }
  if (item.type === 'detection') {
    return 1;
  }
  if (isAlwaysLoad(item)) {
    return 2;
  }
  return 3;
}

/** Builds one topic node. */
export function topicNode(item: CatalogItem): TopicNode {
  const reference = referenceOf(item);
  const parts = [formatCost(item)];
  if (item.type) {
    parts.push(item.type);
  }
  if (item.loadingStrategy) {
    parts.push(item.loadingStrategy);
  }
  return {
    kind: 'topic',
    key: `topic:${item.id}:${item.path ?? ''}`,
    label: topicOf(item),
    description: parts.join(' · '),
    tooltip: topicTooltip(item),
    icon: topicIcon(item),
    reference,
    path: item.path,
    uri: item.uri,
    alwaysLoad: isAlwaysLoad(item),
    tokens: costOf(item),
    item,
  };
}

/** Markdown tooltip of a topic. */
export function topicTooltip(item: CatalogItem): string {
  const lines: string[] = [];
  lines.push(`**${escapeMarkdown(item.title || topicOf(item))}**`);
  lines.push('');
  lines.push(`\`${referenceOf(item)}\``);
  lines.push('');
  const rows: Array<[string, string]> = [];
  if (typeof item.measuredTokens === 'number') {
    rows.push(['Measured', formatTokens(item.measuredTokens)]);
  }
  if (typeof item.estimatedTokens === 'number') {
    rows.push(['Declared', formatTokens(item.estimatedTokens)]);
  }
  if (item.type) {
    rows.push(['Type', item.type]);
  }
  if (item.loadingStrategy) {
    rows.push(['Loading', item.loadingStrategy]);
  }
  if (item.tags && item.tags.length > 0) {
    rows.push(['Tags', item.tags.join(', ')]);
  }
  if (item.sections && item.sections.length > 0) {
    rows.push([
      'Sections',
      item.sections
        .map((s) => {
          const t = s.measuredTokens ?? s.estimatedTokens;
          return typeof t === 'number' ? `${s.name} (${formatTokens(t)})` : s.name;
        })
        .join(', '),
    ]);
  }
  for (const [k, v] of rows) {
    lines.push(`${k}: ${escapeMarkdown(v)}  `);
  }
  if (item.path) {
    lines.push('');
    lines.push(escapeMarkdown(item.path));
  }
  return lines.join('\n');
}

/**
 * Summarizes a tree for the view's description: "4 domains · 29 topics".
 * The group of root-level files is not a domain (ctxls check does not
 * count it as one), but its topics are topics.
 */
export function treeSummary(domains: readonly DomainNode[]): string | undefined {
  if (domains.length === 0) {
    return undefined;
  }
  const named = domains.filter((d) => d.key !== `domain:`).length;
  const topics = domains.reduce((n, d) => n + d.topics.length, 0);
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return `${plural(named, 'domain', 'domains')} · ${plural(topics, 'topic', 'topics')}`;
}

/**
 * Groups catalog items by domain. Domains are sorted by name with the
 * root-level group last; inside a domain, index and detection files come
 * first, then always-load topics, then the rest by name.
 */
export function buildContextTree(items: readonly CatalogItem[]): DomainNode[] {
  const byDomain = new Map<string, CatalogItem[]>();
  const seen = new Set<string>();
  for (const item of items) {
    if (!item || typeof item.id !== 'string' || item.id === '') {
      continue;
    }
    const identity = `${item.id}\u0000${item.path ?? ''}`;
    if (seen.has(identity)) {
      continue;
    }
    seen.add(identity);
    const domain = domainOf(item);
    let list = byDomain.get(domain);
    if (!list) {
      list = [];
      byDomain.set(domain, list);
    }
    list.push(item);
  }
  const domains: DomainNode[] = [];
  for (const [domain, list] of byDomain) {
    list.sort((a, b) => typeRank(a) - typeRank(b) || topicOf(a).localeCompare(topicOf(b)));
    const topics = list.map(topicNode);
    const tokens = topics.reduce((sum, t) => sum + (t.tokens ?? 0), 0);
    const alwaysLoadTokens = topics.reduce((sum, t) => sum + (t.alwaysLoad ? t.tokens ?? 0 : 0), 0);
    const count = `${topics.length} ${topics.length === 1 ? 'topic' : 'topics'}`;
    const label = domain || LIBRARY_GROUP;
    domains.push({
      kind: 'domain',
      key: `domain:${domain}`,
      label,
      description: `${count} · ${formatTokens(tokens)}`,
      tooltip:
        `**${escapeMarkdown(label)}**\n\n${count}, ${formatTokens(tokens)} in all` +
        (alwaysLoadTokens > 0 ? `, ${formatTokens(alwaysLoadTokens)} always loaded` : ''),
      tokens,
      alwaysLoadTokens,
      topics,
    });
  }
  domains.sort((a, b) => {
    const ar = a.label === LIBRARY_GROUP ? 1 : 0;
    const br = b.label === LIBRARY_GROUP ? 1 : 0;
    return ar - br || a.label.localeCompare(b.label);
  });
  return domains;
}
