import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  costOf,
  domainOf,
  escapeHtml,
  fenceFor,
  formatCost,
  formatRelevance,
  formatTimestamp,
  formatTokens,
  referenceOf,
  statusIcon,
  topicIcon,
  topicOf,
} from '../../src/format';

test('formatTokens groups thousands and marks unknown', () => {
  const cases: Array<[number | undefined, string]> = [
    [0, '0 tok'],
    [7, '7 tok'],
    [1234, '1,234 tok'],
    [1234567.4, '1,234,567 tok'],
    [undefined, '? tok'],
    [Number.NaN, '? tok'],
  ];
  for (const [n, want] of cases) {
    assert.equal(formatTokens(n), want, `formatTokens(${n})`);
  }
});

test('costOf prefers measured over declared', () => {
  assert.equal(costOf({ measuredTokens: 10, estimatedTokens: 20 }), 10);
  assert.equal(costOf({ estimatedTokens: 20 }), 20);
  assert.equal(costOf({}), undefined);
});

test('formatCost shows declared only when it differs', () => {
  assert.equal(formatCost({ measuredTokens: 1204, estimatedTokens: 1000 }), '1,204 tok (declared 1,000)');
  assert.equal(formatCost({ measuredTokens: 900, estimatedTokens: 900 }), '900 tok');
  assert.equal(formatCost({ estimatedTokens: 50 }), '50 tok (declared)');
});

test('formatRelevance', () => {
  assert.equal(formatRelevance(0.873), '87%');
  assert.equal(formatRelevance(1), '100%');
  assert.equal(formatRelevance(3.14159), '3.14');
  assert.equal(formatRelevance(undefined), '');
});

test('domain, topic and reference of catalog items', () => {
  const cases: Array<[{ id: string; domain?: string }, string, string, string]> = [
    [{ id: 'python/fastapi_patterns', domain: 'python' }, 'python', 'fastapi_patterns', 'python:fastapi_patterns'],
    [{ id: 'python/web/flask', domain: 'python' }, 'python', 'web/flask', 'python:web/flask'],
    [{ id: 'security/owasp' }, 'security', 'owasp', 'security:owasp'],
    [{ id: 'loading_protocol', domain: '' }, '', 'loading_protocol', 'loading_protocol'],
  ];
  for (const [item, d, t, r] of cases) {
    assert.equal(domainOf(item), d);
    assert.equal(topicOf(item), t);
    assert.equal(referenceOf(item), r);
  }
});

test('topic icons mark always-load', () => {
  assert.equal(topicIcon({ loadingStrategy: 'always', type: 'reference' }), 'pinned');
  assert.equal(topicIcon({ type: 'always' }), 'pinned');
  assert.equal(topicIcon({ type: 'index', loadingStrategy: 'onDemand' }), 'list-tree');
  assert.equal(topicIcon({ type: 'pattern', loadingStrategy: 'lazy' }), 'symbol-structure');
  assert.equal(topicIcon({}), 'book');
});

test('status icons', () => {
  assert.equal(statusIcon('success'), 'pass');
  assert.equal(statusIcon('FAILED'), 'error');
  assert.equal(statusIcon('running'), 'sync');
  assert.equal(statusIcon(undefined), 'circle-outline');
});

test('escapeHtml escapes markup and quotes', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
});

test('fenceFor is longer than any backtick run', () => {
  assert.equal(fenceFor('plain'), '```');
  assert.equal(fenceFor('has ``` inside'), '````');
  assert.equal(fenceFor('has ````` inside'), '``````');
});

test('formatTimestamp', () => {
  assert.equal(formatTimestamp('2026-02-10T12:34:56Z'), '2026-02-10 12:34');
  assert.equal(formatTimestamp('yesterday'), 'yesterday');
  assert.equal(formatTimestamp(undefined), '');
});
