import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DOCUMENT_SELECTOR,
  SESSION_AGENTS,
  SESSION_AGENT_CHOICES,
  affectsSession,
  sessionAgent,
  sessionAgentPickItems,
  sessionGroups,
  sessionPickItems,
  sessionStatusText,
  sessionTooltip,
} from '../../src/agentFiles';
import type { SessionCost } from '../../src/protocol';

const root = process.cwd();
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Matches a path against the document filters' globs (**, *, {a,b}). */
function selected(path: string): boolean {
  return DOCUMENT_SELECTOR.some((f) => {
    if (f.language === 'markdown') {
      return path.endsWith('.md');
    }
    if (!f.pattern) {
      return false;
    }
    const re = f.pattern
      .replace(/[.+^$()|[\]\\]/g, '\\$&')
      .replace(/\{([^}]*)\}/g, (_, alts: string) => `(?:${alts.split(',').join('|')})`)
      .replace(/\*\*\//g, '\u0000')
      .replace(/\*/g, '[^/]*')
      .replace(/\u0000/g, '(?:.*/)?');
    return new RegExp(`^${re}$`).test(path);
  });
}

test('the server gets the agent files that are not plain markdown', () => {
  for (const p of [
    'CLAUDE.md',
    '.cursor/rules/go.mdc',
    '.github/instructions/go.instructions.md',
    '.github/prompts/plan.prompt.md',
    'plugins/p/.claude-plugin/plugin.json',
    '.claude-plugin/marketplace.json',
    '.mcp.json',
    'plugins/p/.lsp.json',
    '.cursor/mcp.json',
    '.vscode/mcp.json',
    '.gemini/settings.json',
    '.codex/config.toml',
    '.claude/settings.json',
    '.claude/settings.local.json',
    'plugins/p/hooks/hooks.json',
  ]) {
    assert.ok(selected(p), `${p} is not served`);
  }
  for (const p of ['package.json', 'src/main.go', 'tsconfig.json', '.vscode/settings.json', 'mcp.json']) {
    assert.ok(!selected(p), `${p} is served`);
  }
  const client = readFileSync(join(root, 'src', 'client.ts'), 'utf8');
  assert.match(client, /documentSelector: \[\.\.\.DOCUMENT_SELECTOR\]/);
});

test('the extension starts in workspaces with context or agent files, not on any markdown file', () => {
  const events: string[] = manifest.activationEvents;
  assert.ok(!events.includes('onLanguage:markdown'), 'activates on every markdown file');
  for (const e of events) {
    assert.match(e, /^workspaceContains:/);
  }
  for (const file of ['CLAUDE.md', 'SKILL.md', 'AGENTS.md', '.cursor/rules/**/*.mdc', 'copilot-instructions.md', '.ctxls.yaml', 'context/*/*.md']) {
    assert.ok(
      events.some((e) => e.endsWith(file)),
      `no activation event for ${file}`,
    );
  }
});

test('saves that change a session', () => {
  assert.ok(affectsSession('/w/CLAUDE.md'));
  assert.ok(affectsSession('C:\\w\\.cursor\\rules\\a.mdc'));
  assert.ok(affectsSession('/w/.claude-plugin/plugin.json'));
  assert.ok(!affectsSession('/w/package.json'));
  assert.ok(!affectsSession('/w/main.go'));
});

const cost: SessionCost = {
  agent: 'claude',
  alwaysLoaded: [
    { file: 'CLAUDE.md', tokens: 412, reason: 'project memory' },
    { file: '.claude/skills/deploy/SKILL.md', tokens: 31, reason: 'skill listing' },
    { file: 'docs/style.md', tokens: 1200, reason: 'imported by CLAUDE.md (hop 1)' },
  ],
  onDemand: [{ file: '.claude/skills/deploy/SKILL.md', tokens: 900, reason: 'skill body, when invoked' }],
  totalAlwaysLoaded: 1643,
  tokenizer: 'claude-5',
  notCounted: ['the tool schemas of every MCP server the session connects to'],
};

test('session status text and tooltip', () => {
  assert.equal(sessionStatusText(undefined), undefined);
  assert.equal(sessionStatusText({ ...cost, alwaysLoaded: [], totalAlwaysLoaded: 0 }), undefined);
  assert.equal(sessionStatusText(cost), '$(hubot) 1,643 tok (claude-5)');
  assert.equal(sessionStatusText({ ...cost, warnings: ['listing too long'] }), '$(hubot) 1,643 tok (claude-5) $(warning)');
  const tip = sessionTooltip({ ...cost, warnings: ['listing too long'] }, 2).split('\n');
  assert.deepEqual(tip, [
    'A claude session loads 1,643 tok at start (claude-5):',
    'docs/style.md — 1,200 tok (imported by CLAUDE.md (hop 1))',
    'CLAUDE.md — 412 tok (project memory)',
    '… and 1 more',
    '⚠ listing too long',
    'Not counted: the tool schemas of every MCP server the session connects to',
    'Click for the breakdown.',
  ]);
});

test('session breakdown rows', () => {
  const rows = sessionPickItems(cost);
  assert.deepEqual(
    rows.map((r) => (r.separator ? `-- ${r.label}` : `${r.label} ${r.description}`)),
    [
      '-- Loaded at start',
      'docs/style.md 1,200 tok',
      'CLAUDE.md 412 tok',
      '.claude/skills/deploy/SKILL.md 31 tok',
      '-- Loaded later',
      '.claude/skills/deploy/SKILL.md 900 tok',
    ],
  );
  assert.equal(rows[1].file, 'docs/style.md');
  assert.equal(rows[1].detail, 'imported by CLAUDE.md (hop 1)');
});

test('session tree groups: always loaded, listing, on demand', () => {
  assert.deepEqual(sessionGroups(undefined), []);
  const groups = sessionGroups({
    ...cost,
    alwaysLoaded: [...cost.alwaysLoaded, { file: '.claude/agents/a.md', tokens: 20, reason: 'subagent listing' }],
  });
  assert.deepEqual(
    groups.map((g) => [g.label, g.tokens, g.entries.map((e) => e.file)]),
    [
      ['Always loaded', 1612, ['docs/style.md', 'CLAUDE.md']],
      ['Listing', 51, ['.claude/skills/deploy/SKILL.md', '.claude/agents/a.md']],
      ['On demand', 900, ['.claude/skills/deploy/SKILL.md']],
    ],
  );
  // A group with nothing in it is left out.
  assert.deepEqual(
    sessionGroups({ ...cost, onDemand: [] }).map((g) => g.label),
    ['Always loaded', 'Listing'],
  );
});

test('the session agent setting', () => {
  assert.equal(sessionAgent(undefined), 'claude');
  assert.equal(sessionAgent('bogus'), 'claude');
  for (const a of SESSION_AGENTS) {
    assert.equal(sessionAgent(a), a);
  }
  assert.equal(sessionAgent('all'), 'all');
  const p = manifest.contributes.configuration.properties['ctxls.sessionAgent'];
  assert.deepEqual(p.enum, [...SESSION_AGENT_CHOICES]);
  assert.equal(p.enumDescriptions.length, p.enum.length);
  assert.equal(p.default, 'claude');
});

test('the agent picker offers every agent and all, and the view title carries it', () => {
  const items = sessionAgentPickItems('codex');
  assert.deepEqual(
    items.map((i) => i.label),
    [...SESSION_AGENTS, 'all'],
  );
  assert.equal(items.find((i) => i.label === 'codex')?.description, 'current');
  assert.equal(items.find((i) => i.label === 'claude')?.description, '');
  assert.match(sessionAgentPickItems('all').find((i) => i.label === 'all')?.description ?? '', /side by side · current$/);
  const menu = manifest.contributes.menus['view/title'].find((m: { command: string }) => m.command === 'ctxls.pickSessionAgent');
  assert.equal(menu?.when, 'view == ctxls.sessionCost');
  assert.ok(manifest.contributes.commands.some((c: { command: string }) => c.command === 'ctxls.pickSessionAgent'));
});

test('a cost of all agents shows a column per agent', () => {
  const all: SessionCost = {
    agent: 'all',
    alwaysLoaded: [],
    onDemand: [],
    totalAlwaysLoaded: 0,
    tokenizer: '',
    notCounted: [],
    agents: [
      {
        agent: 'claude',
        tokenizer: 'claude',
        totalAlwaysLoaded: 450,
        alwaysLoaded: [
          { file: 'CLAUDE.md', tokens: 50, reason: 'project memory' },
          { file: 'docs/style.md', tokens: 400, reason: 'imported by CLAUDE.md (hop 1)' },
        ],
        onDemand: [{ file: '.claude/skills/deploy/SKILL.md', tokens: 900, reason: 'skill body when invoked' }],
      },
      {
        agent: 'codex',
        tokenizer: 'o200k_base',
        totalAlwaysLoaded: 30,
        alwaysLoaded: [{ file: 'AGENTS.md', tokens: 30, reason: 'AGENTS.md chain' }],
        onDemand: [],
        warnings: ['AGENTS.md chain is cut at 32768 bytes'],
      },
    ],
  };
  assert.deepEqual(
    sessionGroups(all).map((g) => [g.label, g.tokens, g.entries.map((e) => e.file)]),
    [
      ['claude (claude)', 450, ['docs/style.md', 'CLAUDE.md']],
      ['codex (o200k_base)', 30, ['AGENTS.md']],
    ],
  );
  assert.equal(sessionStatusText(all), '$(hubot) claude 450 tok (claude) · codex 30 tok (o200k_base) $(warning)');
  const rows = sessionPickItems(all);
  assert.deepEqual(
    rows.map((r) => (r.separator ? `-- ${r.label}` : `${r.label} ${r.description}`)),
    [
      '-- claude: loaded at start (450 tok (claude))',
      'docs/style.md 400 tok',
      'CLAUDE.md 50 tok',
      '-- codex: loaded at start (30 tok (o200k_base))',
      'AGENTS.md 30 tok',
    ],
  );
  const tip = sessionTooltip(all);
  assert.match(tip, /^claude — 450 tok in 2 files \(claude\)$/m);
  assert.match(tip, /^  ⚠ AGENTS.md chain is cut at 32768 bytes$/m);
});
