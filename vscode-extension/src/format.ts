// Formatting helpers shared by the views. No `vscode` import: unit-tested.

import type { CatalogItem } from './protocol';

const numberFormat = new Intl.NumberFormat('en-US');

/** `1234` → `1,234 tok`; unknown → `? tok`. */
export function formatTokens(n: number | null | undefined): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    return '? tok';
  }
  return `${numberFormat.format(Math.round(n))} tok`;
}

/** Measured cost when known, else declared, else undefined. */
export function costOf(item: Partial<Pick<CatalogItem, 'measuredTokens' | 'estimatedTokens'>>): number | undefined {
  if (typeof item.measuredTokens === 'number') {
    return item.measuredTokens;
  }
  if (typeof item.estimatedTokens === 'number') {
    return item.estimatedTokens;
  }
  return undefined;
}

/**
 * Token text of a topic: measured first, declared in parentheses when it
 * differs (`1,204 tok (declared 1,000)`).
 */
export function formatCost(item: Partial<Pick<CatalogItem, 'measuredTokens' | 'estimatedTokens'>>): string {
  const measured = item.measuredTokens;
  const declared = item.estimatedTokens;
  if (typeof measured === 'number') {
    if (typeof declared === 'number' && declared !== measured) {
      return `${formatTokens(measured)} (declared ${numberFormat.format(declared)})`;
    }
    return formatTokens(measured);
  }
  if (typeof declared === 'number') {
    return `${formatTokens(declared)} (declared)`;
  }
  return formatTokens(undefined);
}

/** Relevance as a percentage when in 0..1, else with two decimals. */
export function formatRelevance(r: number | null | undefined): string {
  if (typeof r !== 'number' || !Number.isFinite(r)) {
    return '';
  }
  if (r >= 0 && r <= 1) {
    return `${Math.round(r * 100)}%`;
  }
  return r.toFixed(2);
}

/** Domain of a catalog item: its `domain` field, else the first segment of its id. */
export function domainOf(item: Pick<CatalogItem, 'id'> & Partial<Pick<CatalogItem, 'domain'>>): string {
  if (typeof item.domain === 'string') {
    return item.domain;
  }
  const slash = item.id.indexOf('/');
  return slash > 0 ? item.id.slice(0, slash) : '';
}

/** Topic part of an id: `python/fastapi_patterns` → `fastapi_patterns`. */
export function topicOf(item: Pick<CatalogItem, 'id'> & Partial<Pick<CatalogItem, 'domain'>>): string {
  const domain = domainOf(item);
  if (domain && item.id.startsWith(domain + '/')) {
    return item.id.slice(domain.length + 1);
  }
  return item.id;
}

/**
 * The key-form reference of a topic: `domain:topic`. Files without a domain
 * have no key form; their id is returned.
 */
export function referenceOf(item: Pick<CatalogItem, 'id'> & Partial<Pick<CatalogItem, 'domain'>>): string {
  const domain = domainOf(item);
  return domain ? `${domain}:${topicOf(item)}` : item.id;
}

/** True when the topic is loaded whenever its domain is. */
export function isAlwaysLoad(item: Partial<Pick<CatalogItem, 'loadingStrategy' | 'type'>>): boolean {
  return item.loadingStrategy === 'always' || item.type === 'always';
}

/** Codicons of the topic types that have their own. */
const topicIcons = new Map([
  ['index', 'list-tree'],
  ['detection', 'search'],
  ['framework', 'package'],
  ['pattern', 'symbol-structure'],
]);

/** Codicon name of a topic by type and loading strategy. */
export function topicIcon(item: Partial<Pick<CatalogItem, 'loadingStrategy' | 'type'>>): string {
  if (isAlwaysLoad(item)) {
    return 'pinned';
  }
  return topicIcons.get(item.type ?? '') ?? 'book';
}

/** Codicons of the execution and command statuses, by the words for each. */
const statusIcons = new Map(
  Object.entries({
    pass: ['success', 'completed', 'complete', 'done'],
    warning: ['partial'],
    error: ['failed', 'error'],
    sync: ['running', 'started', 'in_progress', 'inprogress'],
    'circle-slash': ['cancelled', 'canceled'],
    'debug-pause': ['interrupted'],
  }).flatMap(([icon, statuses]) => statuses.map((s) => [s, icon] as const)),
);

/** Codicon name for an execution or command status. */
export function statusIcon(status: string | undefined): string {
  return statusIcons.get((status ?? '').toLowerCase()) ?? 'circle-outline';
}

/** `2026-02-10T12:34:56Z` → `2026-02-10 12:34`; anything else unchanged. */
export function formatTimestamp(ts: string | undefined): string {
  if (!ts) {
    return '';
  }
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})/.exec(ts);
  return m ? `${m[1]} ${m[2]}` : ts;
}

/** Short form of a session id for labels. */
export function shortId(id: string): string {
  return id.length > 12 ? id.slice(0, 8) : id;
}

/** `a → b → c` */
export function formatChain(commands: readonly string[]): string {
  return commands.join(' → ');
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Escapes characters with meaning in inline markdown. */
export function escapeMarkdown(s: string): string {
  return s.replace(/([\\`*_{}[\]()#+\-.!|<>])/g, '\\$1');
}

/** A fence longer than any backtick run inside `content`. */
export function fenceFor(content: string): string {
  let longest = 0;
  for (const m of content.matchAll(/`+/g)) {
    longest = Math.max(longest, m[0].length);
  }
  return '`'.repeat(Math.max(3, longest + 1));
}
