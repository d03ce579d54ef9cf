import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  contextLabel,
  renderChainPreviewHtml,
  renderChainPreviewMarkdown,
  stepsOf,
  summarizePreview,
} from '../../src/chainPreview';
import type { ChainPreviewResult } from '../../src/protocol';

const preview: ChainPreviewResult = {
  steps: [
    {
      command: 'brainstorm',
      context: [
        { reference: 'python:index', tokens: 300, reason: 'always-load' },
        { domain: 'python', topic: 'fastapi_patterns', section: 'Security', tokens: 400 },
      ],
      promptTokens: 1500,
      commandTokens: 600,
      warnings: ['budget: dropped 1 file'],
      dropped: [{ reference: 'security:owasp', tokens: 5000 }],
    },
    {
      command: 'implement',
      context: [
        { reference: 'python:index', tokens: 300, cached: true },
        { id: 'python/testing', tokens: 200, source: 'cache' },
        { reference: 'python:errors', tokens: 100 },
      ],
      promptTokens: 2000,
      prompt: '<script>alert(1)</script>',
    },
  ],
};

test('summary counts cache hits and tokens', () => {
  const sum = summarizePreview(preview);
  assert.equal(sum.totalTokens, 3500);
  assert.equal(sum.cacheHits, 2);
  assert.equal(sum.steps[0].contextTokens, 700);
  assert.equal(sum.steps[0].dropped, 1);
  assert.equal(sum.steps[1].cacheHits, 2);
});

test('server totals win over computed ones', () => {
  const sum = summarizePreview({ ...preview, totalTokens: 42, cacheHits: 7 });
  assert.equal(sum.totalTokens, 42);
  assert.equal(sum.cacheHits, 7);
});

test('steps read from items when steps is absent', () => {
  assert.equal(stepsOf({ items: preview.steps }).length, 2);
  assert.equal(stepsOf(undefined).length, 0);
});

test('context labels from any field combination', () => {
  assert.equal(contextLabel({ reference: 'a:b#C' }), 'a:b#C');
  assert.equal(contextLabel({ domain: 'a', topic: 'b', section: 'C' }), 'a:b#C');
  assert.equal(contextLabel({ id: 'a/b' }), 'a:b');
});

test('html shows every step with cache hits and escapes content', () => {
  const html = renderChainPreviewHtml(preview, ['brainstorm', 'implement'], 'add <b>login</b>', 'vscode-resource:');
  assert.match(html, /Chain preview: \/brainstorm → \/implement/);
  assert.match(html, /Step 1 of 2: \/brainstorm/);
  assert.match(html, /Step 2 of 2: \/implement/);
  assert.equal((html.match(/cache hit</g) ?? []).length, 2);
  assert.match(html, /python:fastapi_patterns#Security/);
  assert.match(html, /3,500 tok in all · 2 cache hits/);
  assert.match(html, /dropped/);
  assert.match(html, /budget: dropped 1 file/);
  assert.ok(!html.includes('<script>'), 'prompt must be escaped');
  assert.ok(!html.includes('<b>login'), 'input must be escaped');
  assert.match(html, /Content-Security-Policy/);
  assert.match(html, /default-src 'none'/);
});

test('html for an empty preview says so', () => {
  const html = renderChainPreviewHtml({ steps: [] }, ['x'], '');
  assert.match(html, /returned no steps/);
});

test('markdown rendering lists sources', () => {
  const md = renderChainPreviewMarkdown(preview, ['brainstorm', 'implement'], 'do it');
  assert.match(md, /^# Chain preview: \/brainstorm → \/implement/);
  assert.match(md, /\| `python:index` \| cache hit \| 300 tok \|/);
  assert.match(md, /\| `security:owasp` \| dropped \| 5,000 tok \|/);
  assert.match(md, /> do it/);
});
