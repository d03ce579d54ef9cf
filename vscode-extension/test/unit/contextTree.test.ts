import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildContextTree, entryLabel, LIBRARY_GROUP } from '../../src/contextTree';
import type { InventoryEntry, InventoryResult } from '../../src/protocol';
import { inventoryEntry } from './fixtures';

const entries: InventoryEntry[] = [
  inventoryEntry({ reference: 'python:fastapi_patterns', title: 'FastAPI Patterns', type: 'pattern', declaredTokens: 1000, tokens: 1204 }),
  inventoryEntry({ reference: 'python:index', title: 'Python', type: 'index', tokens: 300, loadingStrategy: 'always' }),
  inventoryEntry({ reference: 'python:common_issues', title: 'Common Issues', type: 'always', tokens: 500, loadingStrategy: 'always' }),
  inventoryEntry({ reference: 'python:context_detection', type: 'detection', tokens: 100, loadingStrategy: 'always' }),
  inventoryEntry({ reference: 'angular:components', title: 'Components', type: 'framework', declaredTokens: 800, tokens: 790, loadingStrategy: 'lazy' }),
  inventoryEntry({ reference: 'loading_protocol', title: 'Loading protocol', tokens: 50 }),
  inventoryEntry({ reference: 'review-pr', kind: 'skill', title: 'Reviews a pull request.', tokens: 52, path: '.claude/skills/review-pr/SKILL.md' }),
  inventoryEntry({ reference: 'release_notes', kind: 'skill', title: 'Writes release notes.', tokens: 47, path: '.claude/skills/release-notes/SKILL.md' }),
  inventoryEntry({ reference: 'commands/review.md', kind: 'command', title: 'Review a pull request', tokens: 682 }),
  inventoryEntry({ reference: 'commands/test/COMMAND.md', kind: 'command', title: 'Run the tests', tokens: 653 }),
  inventoryEntry({ reference: '.claude/commands/ship.md', kind: 'command', title: 'Prepare a release', tokens: 32 }),
  inventoryEntry({ reference: '.claude/agents/reviewer.md', kind: 'subagent', title: 'Reviews pull requests', tokens: 21 }),
  inventoryEntry({ reference: '.claude/rules/python.md', kind: 'rule', title: 'python.md', tokens: 39 }),
  inventoryEntry({ reference: '.cursor/rules/python.mdc', kind: 'rule', title: 'Conventions for the Python topics', tokens: 35 }),
];
const inventory: InventoryResult = {
  entries,
  tokens: entries.reduce((n, e) => n + e.tokens, 0),
  tokenizer: 'o200k_base',
};

test('domains first, sorted, root files last; then skills, commands, subagents and rules', () => {
  const { groups } = buildContextTree(inventory);
  assert.deepEqual(
    groups.map((g) => [g.label, g.entryKind]),
    [
      ['angular', 'topic'],
      ['python', 'topic'],
      [LIBRARY_GROUP, 'topic'],
      ['Skills', 'skill'],
      ['Commands', 'command'],
      ['Subagents', 'subagent'],
      ['Rules', 'rule'],
    ],
  );
  // index, detection, always-load, then the rest
  assert.deepEqual(
    groups[1].children.map((t) => t.label),
    ['index', 'context_detection', 'common_issues', 'fastapi_patterns'],
  );
  assert.deepEqual(
    groups.slice(3).map((g) => g.children.map((c) => c.label)),
    [['release_notes', 'review-pr'], ['review', 'ship', 'test'], ['reviewer'], ['python', 'python']],
  );
});

test('every entry is listed once, and the totals are of what is listed', () => {
  const tree = buildContextTree(inventory);
  const listed = tree.groups.flatMap((g) => g.children.map((c) => c.entry));
  assert.equal(listed.length, entries.length);
  assert.deepEqual(new Set(listed), new Set(entries));
  assert.equal(tree.groups.reduce((n, g) => n + g.tokens, 0), inventory.tokens);
  assert.equal(
    tree.summary,
    `2 domains · 6 topics · 2 skills · 3 commands · 1 subagent · 2 rules · ${inventory.tokens.toLocaleString('en-US')} tok (o200k_base)`,
  );
  assert.equal(tree.tokenizer, 'o200k_base');
});

test('group totals use the measured tokens, in the tokenizer the response names', () => {
  const { groups } = buildContextTree(inventory);
  const python = groups.find((g) => g.label === 'python')!;
  assert.equal(python.tokens, 1204 + 300 + 500 + 100);
  assert.equal(python.alwaysLoadTokens, 300 + 500 + 100);
  assert.equal(python.description, '4 topics · 2,104 tok');
  assert.match(python.tooltip, /2,104 tok \\\(o200k\\_base\\\) in all, 900 tok always loaded/);
  const commands = groups.find((g) => g.label === 'Commands')!;
  assert.equal(commands.description, '3 commands · 1,367 tok');
  assert.equal(groups.find((g) => g.label === 'Subagents')!.description, '1 subagent · 21 tok');
});

test('topic leaves carry reference, description, icon and path', () => {
  const { groups } = buildContextTree(inventory);
  const fastapi = groups[1].children.find((t) => t.label === 'fastapi_patterns')!;
  assert.equal(fastapi.reference, 'python:fastapi_patterns');
  assert.equal(fastapi.description, '1,204 tok (declared 1,000) · pattern · onDemand');
  assert.equal(fastapi.icon, 'symbol-structure');
  assert.equal(fastapi.alwaysLoad, false);
  assert.equal(fastapi.path, 'context/python/fastapi_patterns.md');
  assert.match(fastapi.tooltip, /FastAPI Patterns/);
  assert.match(fastapi.tooltip, /Measured: 1,204 tok \\\(o200k\\_base\\\)/);
  assert.match(fastapi.tooltip, /Declared: 1,000 tok/);
  const common = groups[1].children.find((t) => t.label === 'common_issues')!;
  assert.equal(common.alwaysLoad, true);
  assert.equal(common.icon, 'pinned');
  const root = groups[2].children[0];
  assert.equal(root.reference, 'loading_protocol');
  assert.equal(root.label, 'loading_protocol');
});

test('leaves of the other kinds: title, tokens, icon, path; same names told apart by folder', () => {
  const { groups } = buildContextTree(inventory);
  const skill = groups.find((g) => g.label === 'Skills')!.children[1];
  assert.equal(skill.reference, 'review-pr');
  assert.equal(skill.description, '52 tok · Reviews a pull request.');
  assert.equal(skill.icon, 'sparkle');
  assert.equal(skill.path, '.claude/skills/review-pr/SKILL.md');
  assert.equal(skill.alwaysLoad, false);
  assert.match(skill.tooltip, /Tokens: 52 tok \\\(o200k\\_base\\\)/);
  const ship = groups.find((g) => g.label === 'Commands')!.children[1];
  assert.equal(ship.reference, '.claude/commands/ship.md');
  assert.equal(ship.icon, 'terminal');
  const rules = groups.find((g) => g.label === 'Rules')!.children;
  // A title that only repeats the file name is left out.
  assert.deepEqual(
    rules.map((r) => r.description),
    ['39 tok · .claude/rules', '35 tok · Conventions for the Python topics · .cursor/rules'],
  );
});

test('labels: a topic inside its domain, a skill by name, a file named for its kind by its folder', () => {
  const cases: Array<[Pick<InventoryEntry, 'kind' | 'reference' | 'path'>, string]> = [
    [{ kind: 'topic', reference: 'go:web/errors', path: 'context/go/web/errors.md' }, 'web/errors'],
    [{ kind: 'topic', reference: 'index', path: 'context/index.md' }, 'index'],
    [{ kind: 'skill', reference: 'deploy-app', path: '.claude/skills/deploy-app/SKILL.md' }, 'deploy-app'],
    // A skill whose name others share is referred to by its path.
    [{ kind: 'skill', reference: 'a/skills/x/SKILL.md', path: 'a/skills/x/SKILL.md' }, 'x'],
    [{ kind: 'command', reference: 'commands/test/COMMAND.md', path: 'commands/test/COMMAND.md' }, 'test'],
    [{ kind: 'command', reference: 'commands/review.md', path: 'commands/review.md' }, 'review'],
    [{ kind: 'rule', reference: '.cursor/rules/python.mdc', path: '.cursor/rules/python.mdc' }, 'python'],
    [{ kind: 'rule', reference: 'AGENTS.md', path: 'AGENTS.md' }, 'AGENTS'],
  ];
  for (const [entry, want] of cases) {
    assert.equal(entryLabel(entry), want, entry.reference);
  }
});

test('skips malformed, unknown and repeated entries', () => {
  const bad = [
    ...entries,
    entries[0],
    entries[7],
    { reference: '' } as InventoryEntry,
    null as unknown as InventoryEntry,
    { title: 'no reference', kind: 'topic' } as unknown as InventoryEntry,
    inventoryEntry({ reference: 'x.json', kind: 'plugin' }),
  ];
  const tree = buildContextTree({ ...inventory, entries: bad });
  assert.equal(tree.groups.reduce((n, g) => n + g.children.length, 0), entries.length);
});

test('an empty or failed inventory gives an empty tree and no summary', () => {
  for (const result of [{ entries: [], tokens: 0, tokenizer: 'o200k_base' }, undefined, null]) {
    const tree = buildContextTree(result);
    assert.deepEqual(tree.groups, []);
    assert.equal(tree.summary, undefined);
  }
});

test('agent files without a library: only their groups', () => {
  const tree = buildContextTree({ entries: [entries[6]], tokens: 52, tokenizer: 'claude-5' });
  assert.deepEqual(tree.groups.map((g) => g.label), ['Skills']);
  assert.equal(tree.summary, '1 skill · 52 tok (claude-5)');
});
