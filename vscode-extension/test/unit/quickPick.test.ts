import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chainPickItems,
  commandPickItems,
  costBreakdownItems,
  costStatusText,
  executionPickItems,
  searchPickItems,
} from '../../src/quickPick';
import type { SearchItem } from '../../src/protocol';

const results: SearchItem[] = [
  { reference: { id: 'python/common_issues', domain: 'python', title: 'Common Issues', measuredTokens: 500, type: 'always' }, relevance: 0.4, matchedOn: ['tags'] },
  { reference: { id: 'python/fastapi_patterns', domain: 'python', title: 'FastAPI Patterns', measuredTokens: 1204, estimatedTokens: 1000 }, relevance: 0.93, matchedOn: ['title', 'keywords'] },
  { reference: { id: 'security/owasp', domain: 'security', estimatedTokens: 700 }, relevance: 0.61, matchedOn: 'content' },
];

test('search items sorted by relevance with tokens and match fields', () => {
  const items = searchPickItems(results);
  assert.deepEqual(
    items.map((i) => i.label),
    ['python:fastapi_patterns', 'security:owasp', 'python:common_issues'],
  );
  assert.equal(items[0].description, 'FastAPI Patterns');
  assert.equal(items[0].detail, 'relevance 93% · 1,204 tok · matched on title, keywords');
  assert.equal(items[1].detail, 'relevance 61% · 700 tok · matched on content');
  assert.equal(items[2].detail, 'relevance 40% · 500 tok · matched on tags · always');
  assert.ok(items.every((i) => i.alwaysShow));
});

test('search items skip results without a reference', () => {
  const items = searchPickItems([{ relevance: 1 } as unknown as SearchItem, results[0]]);
  assert.equal(items.length, 1);
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
    { name: 'test', tokens: 300, references: ['python:testing'] },
    { name: 'brainstorm', description: 'Explore options', tokens: 1200, references: ['a:b', 'c:d'] },
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
      { sessionId: 's1', chain: ['a', 'b'], state: 'interrupted', startedAt: '2026-01-01T00:00:00Z' },
      { sessionId: 's2', state: 'running' },
    ],
    's2',
  );
  assert.equal(items[0].label, 'a → b');
  assert.equal(items[0].description, 'interrupted · 2026-01-01 00:00');
  assert.equal(items[1].description, '● current · running');
});

test('status text for document cost', () => {
  assert.equal(costStatusText(undefined), undefined);
  assert.equal(costStatusText({ items: [] }), undefined);
  assert.equal(
    costStatusText({
      total: 1700,
      items: [
        { reference: 'python:fastapi_patterns', tokens: 1200, resolved: true },
        { reference: 'python:index', tokens: 500, resolved: true },
        { reference: 'python:django', resolved: false },
      ],
    }),
    '1,700 tok · 3 refs · 1 unresolved',
  );
  assert.equal(costStatusText({ items: [{ reference: 'a:b', tokens: 5 }] }), '5 tok · 1 ref');
});

test('breakdown sorted by cost, unresolved flagged', () => {
  const items = costBreakdownItems({
    items: [
      { reference: 'python:index', tokens: 500, title: 'Python', line: 3 },
      { reference: 'python:django', resolved: false },
      { reference: 'python:fastapi_patterns', tokens: 1200, section: 'Security' },
    ],
  });
  assert.deepEqual(
    items.map((i) => [i.label, i.description]),
    [
      ['python:fastapi_patterns', '1,200 tok'],
      ['python:index', '500 tok'],
      ['python:django', 'unresolved'],
    ],
  );
  assert.equal(items[0].detail, 'section Security');
  assert.equal(items[1].detail, 'Python · line 4');
  assert.equal(items[2].icon, 'warning');
});
