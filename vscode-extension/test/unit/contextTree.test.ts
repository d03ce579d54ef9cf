import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildContextTree, LIBRARY_GROUP } from '../../src/contextTree';
import type { CatalogItem } from '../../src/protocol';
import { catalogItem } from './fixtures';

const catalog: CatalogItem[] = [
  catalogItem({ id: 'python/fastapi_patterns', title: 'FastAPI Patterns', type: 'pattern', estimatedTokens: 1000, measuredTokens: 1204, loadingStrategy: 'onDemand', tags: ['python', 'fastapi'] }),
  catalogItem({ id: 'python/index', title: 'Python', type: 'index', measuredTokens: 300, loadingStrategy: 'always' }),
  catalogItem({ id: 'python/common_issues', title: 'Common Issues', type: 'always', measuredTokens: 500, loadingStrategy: 'always' }),
  catalogItem({ id: 'python/context_detection', type: 'detection', measuredTokens: 100, loadingStrategy: 'always' }),
  catalogItem({ id: 'angular/components', title: 'Components', type: 'framework', estimatedTokens: 800, measuredTokens: 790, loadingStrategy: 'lazy' }),
  catalogItem({ id: 'loading_protocol', domain: '', title: 'Loading protocol', measuredTokens: 50 }),
];

test('groups topics by domain, domains sorted, root files last', () => {
  const tree = buildContextTree(catalog);
  assert.deepEqual(
    tree.map((d) => d.label),
    ['angular', 'python', LIBRARY_GROUP],
  );
  const python = tree[1];
  assert.equal(python.topics.length, 4);
  // index, detection, always-load, then the rest
  assert.deepEqual(
    python.topics.map((t) => t.label),
    ['index', 'context_detection', 'common_issues', 'fastapi_patterns'],
  );
});

test('domain totals use measured tokens', () => {
  const tree = buildContextTree(catalog);
  const python = tree.find((d) => d.label === 'python')!;
  assert.equal(python.tokens, 1204 + 300 + 500 + 100);
  assert.equal(python.alwaysLoadTokens, 300 + 500 + 100);
  assert.equal(python.description, '4 topics · 2,104 tok');
  const angular = tree.find((d) => d.label === 'angular')!;
  assert.equal(angular.tokens, 790);
  assert.equal(angular.description, '1 topic · 790 tok');
});

test('topic nodes carry reference, description, icon and path', () => {
  const tree = buildContextTree(catalog);
  const fastapi = tree[1].topics.find((t) => t.label === 'fastapi_patterns')!;
  assert.equal(fastapi.reference, 'python:fastapi_patterns');
  assert.equal(fastapi.description, '1,204 tok (declared 1,000) · pattern · onDemand');
  assert.equal(fastapi.icon, 'symbol-structure');
  assert.equal(fastapi.alwaysLoad, false);
  assert.equal(fastapi.path, '/lib/context/python/fastapi_patterns.md');
  assert.match(fastapi.tooltip, /FastAPI Patterns/);
  assert.match(fastapi.tooltip, /Measured: 1,204 tok/);
  assert.match(fastapi.tooltip, /Declared: 1,000 tok/);
  const common = tree[1].topics.find((t) => t.label === 'common_issues')!;
  assert.equal(common.alwaysLoad, true);
  assert.equal(common.icon, 'pinned');
});

test('skips malformed and duplicate items', () => {
  const bad = [
    ...catalog,
    catalog[0],
    { id: '' } as CatalogItem,
    null as unknown as CatalogItem,
    { title: 'no id' } as unknown as CatalogItem,
  ];
  const tree = buildContextTree(bad);
  assert.equal(tree.reduce((n, d) => n + d.topics.length, 0), catalog.length);
});

test('empty catalog gives an empty tree', () => {
  assert.deepEqual(buildContextTree([]), []);
});

test('nested topics keep their sub-path', () => {
  const tree = buildContextTree([catalogItem({ id: 'go/web/errors', domain: 'go', measuredTokens: 5 })]);
  assert.equal(tree[0].label, 'go');
  assert.equal(tree[0].topics[0].reference, 'go:web/errors');
});
