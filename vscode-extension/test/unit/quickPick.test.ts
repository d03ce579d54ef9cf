import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chainPickItems,
  commandPickItems,
  costBreakdownItems,
  costStatusText,
  executionPickItems,
  inventoryPickItems,
} from '../../src/quickPick';
import type { DocumentCostResult, InventoryMatch } from '../../src/protocol';
import { commandInfo, costItem, execution } from './fixtures';

// Results as `ctxls/inventory/search` sends them: best first, ties by reference.
const matches: InventoryMatch[] = [
  { reference: 'deploy-app', title: 'Deploys the app.', kind: 'skill', tokens: 15, path: '.claude/skills/deploy-app/SKILL.md', relevance: 0.9, matchedOn: ['name', 'description'] },
  { reference: '.claude/agents/auditor.md', title: 'Audits deploy scripts', kind: 'subagent', tokens: 12, path: '.claude/agents/auditor.md', relevance: 0.64, matchedOn: ['description'] },
  { reference: '.claude/commands/ship.md', title: 'Ship a release', kind: 'command', tokens: 9, path: '.claude/commands/ship.md', relevance: 0.5, matchedOn: ['description'] },
  { reference: 'ops:release', title: 'Release Process', kind: 'topic', tokens: 1204, id: 'ops/release', path: 'context/ops/release.md', type: 'pattern', relevance: 0.5, matchedOn: ['tag'] },
  { reference: '.claude/rules/deploy.md', title: 'deploy.md', kind: 'rule', tokens: 7, path: '.claude/rules/deploy.md', relevance: 0.3, matchedOn: ['path'] },
];

test('inventory search items: every kind, in the server order, with its icon', () => {
  const items = inventoryPickItems(matches, 'o200k_base');
  assert.deepEqual(
    items.map((i) => [i.label, i.icon]),
    [
      ['deploy-app', 'sparkle'],
      ['.claude/agents/auditor.md', 'robot'],
      ['.claude/commands/ship.md', 'terminal'],
      ['ops:release', 'book'],
      ['.claude/rules/deploy.md', 'law'],
    ],
  );
  assert.equal(items[0].description, 'Deploys the app.');
  assert.equal(items[0].detail, 'relevance 90% · 15 tok (o200k_base) · matched on name, description · skill');
  assert.equal(items[3].detail, 'relevance 50% · 1,204 tok (o200k_base) · matched on tag · pattern');
  assert.ok(items.every((i) => i.alwaysShow));
  assert.deepEqual(items.map((i) => i.value), matches);
});

test('inventory search items keep the order the server sends, not one of their own', () => {
  // Equal relevance is ordered by the server (by reference); the items
  // never reorder what the command line's search lists.
  const reversed = matches.slice().reverse();
  assert.deepEqual(
    inventoryPickItems(reversed).map((i) => i.label),
    reversed.map((m) => m.reference),
  );
});

test('inventory search items skip results without a reference; no tokenizer, no name', () => {
  const items = inventoryPickItems([{ relevance: 1 } as unknown as InventoryMatch, matches[4]]);
  assert.equal(items.length, 1);
  assert.equal(items[0].detail, 'relevance 30% · 7 tok · matched on path · rule');
});

test('chain items list named chains then "build"', () => {
  const items = chainPickItems([
    { name: 'feature', commands: ['brainstorm', 'implement', 'test'] },
    { name: 'fix', commands: ['analyze'] },
  ]);
  assert.equal(items.length, 3);
  assert.equal(items[0].label, 'feature');
  assert.equal(items[0].description, 'brainstorm → implement → test');
  assert.equal(items[0].detail, '3 steps from .ctxls.yaml');
  assert.equal(items[1].detail, '1 step from .ctxls.yaml');
  assert.deepEqual(items[2].value, { kind: 'build' });
});

test('command items: done and undo only after a pick', () => {
  const commands = [
    commandInfo({ name: 'test', tokens: 300, references: ['python:testing'] }),
    commandInfo({ name: 'brainstorm', description: 'Explore options', tokens: 1200, references: ['a:b', 'c:d'] }),
  ];
  const first = commandPickItems(commands, []);
  assert.deepEqual(
    first.map((i) => i.label),
    ['brainstorm', 'test'],
  );
  assert.equal(first[0].detail, 'context 1,200 tok · 2 references');
  const second = commandPickItems(commands, ['brainstorm']);
  assert.equal(second[0].label, 'Done: brainstorm');
  assert.deepEqual(second[0].value, { kind: 'done' });
  assert.deepEqual(second[1].value, { kind: 'undo' });
  assert.match(second[2].detail ?? '', /^already step 1/);
});

test('execution items mark the current one', () => {
  const items = executionPickItems(
    [
      execution({ sessionId: 's1', plan: { commands: ['a', 'b'], input: '' }, state: 'interrupted', startedAt: '2026-01-01T00:00:00Z' }),
      execution({ sessionId: 's2', state: 'running' }),
    ],
    's2',
  );
  assert.equal(items[0].label, 'a → b');
  assert.equal(items[0].description, 'interrupted · 2026-01-01 00:00');
  assert.equal(items[1].description, '● current · running');
});

function cost(items: DocumentCostResult['items'], total?: number): DocumentCostResult {
  return {
    uri: 'file:///lib/commands/x.md',
    total: total ?? items.reduce((n, i) => n + (i.counted ? i.tokens : 0), 0),
    references: items.length,
    unresolved: items.filter((i) => i.resolved === false).length,
    topics: [],
    items,
    omitted: 0,
    tokenizer: 'o200k_base',
    warnings: [],
  };
}

test('status text for document cost', () => {
  assert.equal(costStatusText(undefined), undefined);
  assert.equal(costStatusText(cost([])), undefined);
  assert.equal(
    costStatusText(
      cost([
        costItem({ reference: 'python:fastapi_patterns', tokens: 1200 }),
        costItem({ reference: 'python:index', tokens: 500 }),
        costItem({ reference: 'python:django', resolved: false, counted: false }),
      ]),
    ),
    '1,700 tok (o200k_base) · 3 refs · 1 unresolved',
  );
  assert.equal(costStatusText(cost([costItem({ reference: 'a:b', tokens: 5 })])), '5 tok (o200k_base) · 1 ref');
  // A reply that lists only its first references still counts them all.
  assert.equal(
    costStatusText({ ...cost([costItem({ reference: 'a:b', tokens: 5 })]), references: 4000, unresolved: 2000, omitted: 3999 }),
    '5 tok (o200k_base) · 4000 refs · 2000 unresolved',
  );
});

test('breakdown sorted by cost, unresolved and repeated references flagged', () => {
  const items = costBreakdownItems(
    cost([
      costItem({ reference: 'python:index', tokens: 500, title: 'Python', line: 3 }),
      costItem({ reference: 'python:django', resolved: false, counted: false, line: 7, message: 'no topic django in python; did you mean python:fastapi_patterns?' }),
      costItem({ reference: 'python:fastapi_patterns', tokens: 1200, section: 'Security', line: 0 }),
      costItem({ reference: 'python:index', tokens: 500, counted: false, line: 9 }),
    ]),
  );
  assert.deepEqual(
    items.map((i) => [i.label, i.description]),
    [
      ['python:fastapi_patterns', '1,200 tok'],
      ['python:index', '500 tok'],
      ['python:index', '500 tok (counted once)'],
      ['python:django', 'unresolved'],
    ],
  );
  assert.equal(items[0].detail, 'section Security · line 1');
  assert.equal(items[1].detail, 'Python · line 4');
  assert.equal(items[3].detail, 'no topic django in python; did you mean python:fastapi_patterns? · line 8');
  assert.equal(items[3].icon, 'warning');
});
