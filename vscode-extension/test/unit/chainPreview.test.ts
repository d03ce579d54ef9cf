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
import { chainResult, chainStep, stepItem } from './fixtures';

const preview: ChainPreviewResult = chainResult({
  steps: [
    chainStep({
      command: 'brainstorm',
      context: [
        stepItem({ reference: 'python:index', tokens: 300, reason: 'always-load', source: 'materialized' }),
        stepItem({ reference: 'python:fastapi_patterns#Security', tokens: 400, source: 'materialized' }),
      ],
      contextTokens: 700,
      promptTokens: 1500,
      commandTokens: 600,
      warnings: ['budget: dropped 1 file'],
      dropped: [stepItem({ reference: 'security:owasp', tokens: 5000, reason: 'over the token limit' })],
    }),
    chainStep({
      command: 'implement',
      index: 1,
      context: [
        stepItem({ reference: 'python:index', tokens: 300, cached: true, source: 'cache' }),
        stepItem({ reference: 'python:testing', tokens: 200, cached: true, source: 'cache' }),
        stepItem({ reference: 'python:errors', tokens: 100, source: 'materialized' }),
      ],
      contextTokens: 600,
      cacheHits: 2,
      promptTokens: 2000,
      prompt: '<script>alert(1)</script>',
    }),
  ],
  totalTokens: 3500,
  cacheHits: 2,
});

test('the breakdown has a row for every part, and the rows add up to the prompt', () => {
  const step = chainStep({
    command: 'brainstorm',
    commandTokens: 600,
    memoryTokens: 250,
    contextTokens: 700,
    framingTokens: 50,
    promptTokens: 1600,
  });
  const html = renderChainPreviewHtml(chainResult({ steps: [step], totalTokens: 1600 }), ['brainstorm'], '', 'vscode-resource:');
  const table = /<table class="breakdown">(.*?)<\/table>/s.exec(html)?.[1] ?? '';
  const rows = [...table.matchAll(/<tr><td>([^<]+)<\/td><td class="num">([\d,]+) tok<\/td><\/tr>/g)];
  assert.deepEqual(
    rows.map((r) => r[1]),
    ['Command', 'Memory', 'Context', 'Shared data', 'History', 'Input', 'Headings and separators'],
  );
  const sum = rows.reduce((n, r) => n + Number(r[2].replace(/,/g, '')), 0);
  assert.equal(sum, 1600);
});

test('summary reads the server figures', () => {
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

test('steps of a result; none when the request failed', () => {
  assert.equal(stepsOf(preview).length, 2);
  assert.equal(stepsOf(undefined).length, 0);
});

test('context labels: the reference, else domain and topic', () => {
  assert.equal(contextLabel(stepItem({ reference: 'a:b#C' })), 'a:b#C');
  assert.equal(contextLabel({ ...stepItem({ reference: 'a:b#C' }), reference: '' }), 'a:b#C');
  assert.equal(contextLabel({ ...stepItem({ reference: 'loading_protocol' }), reference: '', domain: '', id: 'loading_protocol' }), 'loading_protocol');
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

test('html names the model the prompts were fitted to', () => {
  const html = renderChainPreviewHtml(
    { ...preview, model: { model: 'small', contextWindow: 8192, historyBudget: 2048 } },
    ['brainstorm', 'implement'],
    '',
  );
  assert.match(html, /model small \(8,192 tok window, history 2,048 tok\)/);
  assert.doesNotMatch(renderChainPreviewHtml(preview, ['brainstorm'], ''), /window/);
});

test('html for an empty preview says so', () => {
  const html = renderChainPreviewHtml(chainResult({}), ['x'], '');
  assert.match(html, /returned no steps/);
});

test('markdown rendering lists sources', () => {
  const md = renderChainPreviewMarkdown(preview, ['brainstorm', 'implement'], 'do it');
  assert.match(md, /^# Chain preview: \/brainstorm → \/implement/);
  assert.match(md, /\| `python:index` \| cache hit \| 300 tok \|/);
  assert.match(md, /\| `security:owasp` \| dropped \| 5,000 tok \|/);
  assert.match(md, /> do it/);
});
