// Quick-pick items built from server results. Plain objects shaped like
// vscode.QuickPickItem so they can be unit-tested without `vscode`.

import type {
  CommandInfo,
  DocumentCostResult,
  Execution,
  InventoryMatch,
  NamedChain,
} from './protocol';
import { itemsOf } from './protocol';
import { AGENT_KINDS } from './contextTree';
import { commandNamesOf, executionState, isCurrentExecution, startedOf } from './executionsTree';
import { formatChain, formatRelevance, formatTimestamp, formatTokens, shortId } from './format';

export interface PickItem<T> {
  label: string;
  description?: string;
  detail?: string;
  /** Codicon shown before the label. */
  icon?: string;
  /** A separator row (kind = Separator in vscode). */
  separator?: boolean;
  alwaysShow?: boolean;
  value: T;
}

/** Codicons of the inventory kinds, as the context browser shows them. */
const kindIcons: Record<string, string> = {
  topic: 'book',
  ...Object.fromEntries(AGENT_KINDS.map((k) => [k.kind, k.icon])),
};

/**
 * Items of the "Search Context" quick pick from `ctxls/inventory/search`:
 * topics, skills, commands, subagents and rules in the server's order,
 * best match first, as the command line's and the MCP server's search list
 * them; tokens counted in tokenizer, the one the response names.
 */
export function inventoryPickItems(
  items: readonly InventoryMatch[],
  tokenizer?: string,
): Array<PickItem<InventoryMatch>> {
  return items
    .filter((i) => i && typeof i.reference === 'string')
    .map((i) => {
      const detail: string[] = [];
      const relevance = formatRelevance(i.relevance);
      if (relevance) {
        detail.push(`relevance ${relevance}`);
      }
      detail.push(tokenizer ? `${formatTokens(i.tokens)} (${tokenizer})` : formatTokens(i.tokens));
      const matched = Array.isArray(i.matchedOn) ? i.matchedOn : [];
      if (matched.length > 0) {
        detail.push(`matched on ${matched.join(', ')}`);
      }
      detail.push(i.kind === 'topic' && i.type ? i.type : i.kind);
      return {
        label: i.reference,
        description: i.title ?? '',
        detail: detail.join(' · '),
        icon: kindIcons[i.kind] ?? 'file',
        // The query is already matched by the server; keep every result visible.
        alwaysShow: true,
        value: i,
      };
    });
}

/** What the chain picker returns. */
export type ChainChoice = { kind: 'named'; chain: NamedChain } | { kind: 'build' };

/** Items of the first "Run/Preview Chain" quick pick: named chains, then "build". */
export function chainPickItems(chains: readonly NamedChain[]): Array<PickItem<ChainChoice>> {
  const items: Array<PickItem<ChainChoice>> = chains
    .filter((c) => c && typeof c.name === 'string' && Array.isArray(c.commands))
    .map((c) => ({
      label: c.name,
      description: formatChain(c.commands),
      detail: `${c.commands.length} ${c.commands.length === 1 ? 'step' : 'steps'} from .ctxls.yaml`,
      icon: 'list-ordered',
      value: { kind: 'named', chain: c } as ChainChoice,
    }));
  items.push({
    label: 'Build a chain…',
    description: 'pick commands in order',
    icon: 'add',
    alwaysShow: true,
    value: { kind: 'build' },
  });
  return items;
}

/** What the command picker of "Build a chain" returns. */
export type CommandChoice = { kind: 'command'; name: string } | { kind: 'done' } | { kind: 'undo' };

/** Items of one round of the command picker, given the steps picked so far. */
export function commandPickItems(
  commands: readonly CommandInfo[],
  picked: readonly string[],
): Array<PickItem<CommandChoice>> {
  const items: Array<PickItem<CommandChoice>> = [];
  if (picked.length > 0) {
    items.push({
      label: `Done: ${formatChain(picked)}`,
      description: `${picked.length} ${picked.length === 1 ? 'step' : 'steps'}`,
      icon: 'check',
      alwaysShow: true,
      value: { kind: 'done' },
    });
    items.push({
      label: `Remove last step (${picked[picked.length - 1]})`,
      icon: 'discard',
      alwaysShow: true,
      value: { kind: 'undo' },
    });
  }
  const sorted = commands.filter((c) => c && typeof c.name === 'string').slice();
  sorted.sort((a, b) => a.name.localeCompare(b.name));
  for (const c of sorted) {
    const detail: string[] = [];
    if (typeof c.tokens === 'number') {
      detail.push(`context ${formatTokens(c.tokens)}`);
    }
    const refs = c.references ?? [];
    if (refs.length > 0) {
      detail.push(`${refs.length} ${refs.length === 1 ? 'reference' : 'references'}`);
    }
    const position = picked.filter((p) => p === c.name).length;
    items.push({
      label: c.name,
      description: c.description ?? '',
      detail: (position > 0 ? [`already step ${picked.indexOf(c.name) + 1}`, ...detail] : detail).join(' · '),
      icon: 'terminal',
      value: { kind: 'command', name: c.name },
    });
  }
  return items;
}

/** Items of an execution picker (resume, cancel, history). */
export function executionPickItems(
  executions: readonly Execution[],
  current?: string,
): Array<PickItem<Execution>> {
  return executions
    .filter((e) => e && typeof e.sessionId === 'string')
    .map((e) => {
      const names = commandNamesOf(e);
      const isCurrent = isCurrentExecution(e) || e.sessionId === current;
      const description = [executionState(e), formatTimestamp(startedOf(e))].filter((s) => s).join(' · ');
      return {
        label: names.length > 0 ? formatChain(names) : shortId(e.sessionId),
        description: isCurrent ? `● current · ${description}` : description,
        detail: `${e.sessionId}${e.projectName ? ` · ${e.projectName}` : ''}`,
        icon: isCurrent ? 'star-full' : 'history',
        value: e,
      };
    });
}

/** Status bar text for a document's reference cost, or undefined when it has none. */
export function costStatusText(result: DocumentCostResult | null | undefined): string | undefined {
  const items = itemsOf(result);
  if (items.length === 0) {
    return undefined;
  }
  const total =
    typeof result?.total === 'number' ? result.total : items.reduce((s, i) => s + (i.tokens ?? 0), 0);
  // The reply lists the first references only; its counts cover them all.
  const unresolved =
    typeof result?.unresolved === 'number' ? result.unresolved : items.filter((i) => i.resolved === false).length;
  const count = typeof result?.references === 'number' ? result.references : items.length;
  const refs = `${count} ${count === 1 ? 'ref' : 'refs'}`;
  // The tokenizer the figures are counted in; a server that names none sends none.
  const tokenizer = result?.tokenizer ? ` (${result.tokenizer})` : '';
  return `${formatTokens(total)}${tokenizer} · ${refs}${unresolved > 0 ? ` · ${unresolved} unresolved` : ''}`;
}

/** Rows of the cost breakdown quick pick, most expensive first. */
export function costBreakdownItems(
  result: DocumentCostResult | null | undefined,
): Array<PickItem<DocumentCostResult['items'] extends (infer U)[] | null | undefined ? U : never>> {
  const items = itemsOf(result).slice();
  items.sort((a, b) => (b.tokens ?? -1) - (a.tokens ?? -1) || a.reference.localeCompare(b.reference));
  return items.map((i) => ({
    label: i.reference,
    description:
      i.resolved === false
        ? 'unresolved'
        : i.counted === false
          ? `${formatTokens(i.tokens)} (counted once)`
          : formatTokens(i.tokens),
    detail: [
      i.resolved === false ? i.message : i.title,
      i.section ? `section ${i.section}` : '',
      typeof i.line === 'number' ? `line ${i.line + 1}` : '',
    ]
      .filter((s) => s)
      .join(' · '),
    icon: i.resolved === false ? 'warning' : 'book',
    value: i,
  }));
}
