// Which files the language server serves besides markdown, and the
// session-cost texts of the status bar. No `vscode` import: unit-tested.

import type { AgentCost, SessionCost, SessionEntry } from './protocol';
import { formatTokens } from './format';

/** A document filter in the shape vscode-languageclient takes. */
export interface Filter {
  scheme: string;
  language?: string;
  pattern?: string;
}

/**
 * The documents the server serves: markdown (context libraries, memory
 * files, skills, commands, AGENTS.md), Cursor rules, Copilot instructions
 * and prompts (which VS Code may give languages of their own), the
 * plugin JSON files, Claude Code settings and plugin hooks, and each
 * agent's MCP server configuration.
 */
export const DOCUMENT_SELECTOR: readonly Filter[] = [
  { scheme: 'file', language: 'markdown' },
  { scheme: 'file', pattern: '**/*.mdc' },
  { scheme: 'file', pattern: '**/*.instructions.md' },
  { scheme: 'file', pattern: '**/*.prompt.md' },
  { scheme: 'file', pattern: '**/.claude-plugin/{plugin,marketplace}.json' },
  { scheme: 'file', pattern: '**/{.mcp,.lsp}.json' },
  { scheme: 'file', pattern: '**/{.cursor,.vscode}/mcp.json' },
  { scheme: 'file', pattern: '**/.gemini/settings.json' },
  { scheme: 'file', pattern: '**/.codex/config.toml' },
  { scheme: 'file', pattern: '**/.claude/{settings,settings.local}.json' },
  { scheme: 'file', pattern: '**/hooks/hooks.json' },
];

/** The files whose changes on disk the server is told of. */
export const WATCH_GLOB = '**/{*.md,*.mdc,.ctxls.yaml,.mcp.json,.lsp.json,plugin.json,marketplace.json,mcp.json,settings.json,settings.local.json,hooks.json,config.toml,.cursorrules,.windsurfrules,.clinerules,opencode.json}';

/** Whether a saved file may change what a session loads. */
export function affectsSession(fileName: string): boolean {
  const f = fileName.replace(/\\/g, '/');
  return /\.(md|mdc)$/.test(f) || /(^|\/)(\.ctxls\.yaml|\.mcp\.json|\.lsp\.json|plugin\.json|marketplace\.json|settings(\.local)?\.json|\.cursorrules|\.windsurfrules|\.clinerules|opencode\.json)$/.test(f);
}

/** Status bar text of a session cost, or undefined when nothing loads. */
export function sessionStatusText(cost: SessionCost | undefined): string | undefined {
  if (cost && columns(cost).length > 0) {
    const warn = columns(cost).some((a) => (a.warnings ?? []).length > 0) ? ' $(warning)' : '';
    return `$(hubot) ${columns(cost).map((a) => `${a.agent} ${formatTokens(a.totalAlwaysLoaded)}${tokenizerSuffix(a)}`).join(' · ')}${warn}`;
  }
  if (!cost || !Array.isArray(cost.alwaysLoaded) || cost.alwaysLoaded.length === 0) {
    return undefined;
  }
  const warn = cost.warnings && cost.warnings.length > 0 ? ' $(warning)' : '';
  return `$(hubot) ${formatTokens(cost.totalAlwaysLoaded)}${tokenizerSuffix(cost)}${warn}`;
}

/** The tokenizer a session cost was counted in, as " (name)"; empty from a server that names none. */
function tokenizerSuffix(cost: { tokenizer?: string }): string {
  return cost.tokenizer ? ` (${cost.tokenizer})` : '';
}

/** Tooltip of the status bar item: what loads at start, biggest first. */
export function sessionTooltip(cost: SessionCost, max = 8): string {
  if (columns(cost).length > 0) {
    const lines = ['At the start of a session of each agent the project configures:'];
    for (const a of columns(cost)) {
      lines.push(`${a.agent} — ${formatTokens(a.totalAlwaysLoaded)} in ${a.alwaysLoaded.length} ${a.alwaysLoaded.length === 1 ? 'file' : 'files'}${tokenizerSuffix(a)}`);
      for (const w of a.warnings ?? []) {
        lines.push(`  ⚠ ${w}`);
      }
    }
    lines.push('Click for the breakdown.');
    return lines.join('\n');
  }
  const lines = [`A ${cost.agent} session loads ${formatTokens(cost.totalAlwaysLoaded)} at start${tokenizerSuffix(cost)}:`];
  if (cost.tokenizerNote) {
    lines.push(`Tokenizer: ${cost.tokenizerNote}`);
  }
  const sorted = byTokens(cost.alwaysLoaded);
  for (const e of sorted.slice(0, max)) {
    lines.push(`${e.file} — ${formatTokens(e.tokens)} (${e.reason})`);
  }
  if (sorted.length > max) {
    lines.push(`… and ${sorted.length - max} more`);
  }
  for (const w of cost.warnings ?? []) {
    lines.push(`⚠ ${w}`);
  }
  if ((cost.notCounted ?? []).length > 0) {
    lines.push(`Not counted: ${(cost.notCounted ?? []).join('; ')}`);
  }
  lines.push('Click for the breakdown.');
  return lines.join('\n');
}

/** Quick-pick rows: what loads at start, then what loads later. */
export function sessionPickItems(cost: SessionCost): Array<{ label: string; description: string; detail: string; file?: string; separator?: boolean }> {
  const rows: Array<{ label: string; description: string; detail: string; file?: string; separator?: boolean }> = [];
  const section = (title: string, entries: readonly SessionEntry[]) => {
    if (entries.length === 0) {
      return;
    }
    rows.push({ label: title, description: '', detail: '', separator: true });
    for (const e of byTokens(entries)) {
      rows.push({ label: e.file, description: formatTokens(e.tokens), detail: e.reason, file: e.file });
    }
  };
  if (columns(cost).length > 0) {
    for (const a of columns(cost)) {
      section(`${a.agent}: loaded at start (${formatTokens(a.totalAlwaysLoaded)}${tokenizerSuffix(a)})`, a.alwaysLoaded ?? []);
    }
    return rows;
  }
  section('Loaded at start', cost.alwaysLoaded ?? []);
  section('Loaded later', cost.onDemand ?? []);
  return rows;
}

function byTokens(entries: readonly SessionEntry[]): SessionEntry[] {
  return entries.slice().sort((a, b) => b.tokens - a.tokens || a.file.localeCompare(b.file));
}

/** The agents whose sessions ctxls/sessionCost computes. */
export const SESSION_AGENTS = ['claude', 'codex', 'gemini', 'cursor', 'copilot', 'windsurf', 'cline', 'kiro', 'opencode'] as const;
export type SessionAgent = (typeof SESSION_AGENTS)[number];

/** The choices of the `ctxls.sessionAgent` setting: one agent, or all side by side. */
export const SESSION_AGENT_CHOICES = [...SESSION_AGENTS, 'all'] as const;
export type SessionAgentChoice = (typeof SESSION_AGENT_CHOICES)[number];

/** The `ctxls.sessionAgent` setting's value, or claude when unset or unknown. */
export function sessionAgent(value: unknown): SessionAgentChoice {
  return SESSION_AGENT_CHOICES.find((a) => a === value) ?? 'claude';
}

/** Rows of the agent picker: every choice, the current one marked. */
export function sessionAgentPickItems(current: SessionAgentChoice): Array<{ label: SessionAgentChoice; description: string }> {
  return SESSION_AGENT_CHOICES.map((a) => ({
    label: a,
    description: (a === 'all' ? 'every agent the project configures, side by side' : '') + (a === current ? (a === 'all' ? ' · current' : 'current') : ''),
  }));
}

/** The columns of a cost of all agents; empty for one agent's cost. */
function columns(cost: SessionCost): AgentCost[] {
  return Array.isArray(cost.agents) ? cost.agents : [];
}

/** A group of the session tree: what loads at start, the listing, what loads later. */
export interface SessionGroup {
  label: string;
  tokens: number;
  entries: SessionEntry[];
}

/**
 * The session tree's groups, each with its entries biggest first: files
 * always loaded at start, the listing (name and description of each skill,
 * command and subagent, loaded at start too), and files loaded on demand.
 * Empty groups are left out.
 */
export function sessionGroups(cost: SessionCost | undefined): SessionGroup[] {
  if (!cost) {
    return [];
  }
  if (columns(cost).length > 0) {
    // One group per agent: what a session of it loads at start, counted
    // in its own tokenizer.
    return columns(cost).map((a) => ({ label: `${a.agent}${tokenizerSuffix(a)}`, tokens: a.totalAlwaysLoaded, entries: byTokens(a.alwaysLoaded ?? []) }));
  }
  const listing = (e: SessionEntry) => / listing$/.test(e.reason);
  const always = cost.alwaysLoaded ?? [];
  const groups: SessionGroup[] = [
    group('Always loaded', always.filter((e) => !listing(e))),
    group('Listing', always.filter(listing)),
    group('On demand', cost.onDemand ?? []),
  ];
  return groups.filter((g) => g.entries.length > 0);
}

function group(label: string, entries: SessionEntry[]): SessionGroup {
  return { label, tokens: entries.reduce((n, e) => n + e.tokens, 0), entries: byTokens(entries) };
}
