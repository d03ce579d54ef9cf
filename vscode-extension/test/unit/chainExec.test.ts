import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderChainPreviewHtml, renderChainPreviewMarkdown, stepCommandLine } from '../../src/chainPreview';
import { RunDrafts } from '../../src/runDrafts';
import { chainResult, chainStep } from './fixtures';

const twoSteps = chainResult({
  steps: [chainStep({ command: 'brainstorm', prompt: 'P1' }), chainStep({ command: 'implement', index: 1, prompt: 'P2' })],
});

test('the preview shows, in every step, the exact argv an exec executor runs', () => {
  const executor = { kind: 'exec', command: ['./tools/agent', '--model', 'big one', "it's"] };
  const want = "./tools/agent --model 'big one' 'it'\\''s'";
  assert.equal(stepCommandLine(executor), want);
  const html = renderChainPreviewHtml(twoSteps, ['brainstorm', 'implement'], 'x', '', executor);
  const sections = html.split('<section class="step"').slice(1);
  assert.equal(sections.length, 2);
  for (const s of sections) {
    // escapeHtml turns the quote into an entity; the argv is otherwise verbatim.
    assert.match(s, /runs <code>\.\/tools\/agent --model &#39;big one&#39; &#39;it&#39;\\&#39;&#39;s&#39;<\/code>/);
  }
  const md = renderChainPreviewMarkdown(twoSteps, ['brainstorm', 'implement'], 'x', executor);
  assert.equal(md.split(want).length - 1, 2, 'the command line once per step in the markdown');
});

test('the preview shows no command line when running runs no program', () => {
  for (const executor of [undefined, { kind: 'preview', command: [] }, { kind: 'exec', command: [] }]) {
    assert.equal(stepCommandLine(executor), undefined);
    assert.doesNotMatch(renderChainPreviewHtml(twoSteps, ['brainstorm', 'implement'], '', '', executor), /class="exec"/);
  }
});

test('a run whose confirmation was declined keeps its input for the same chain only', () => {
  const drafts = new RunDrafts();
  assert.equal(drafts.inputFor(['a', 'b']), undefined);
  drafts.keep(['a', 'b'], 'add pagination');
  assert.equal(drafts.inputFor(['a', 'b']), 'add pagination');
  assert.equal(drafts.inputFor(['a', 'b']), 'add pagination', 'kept until a run starts');
  assert.equal(drafts.inputFor(['b', 'a']), undefined);
  assert.equal(drafts.inputFor(['a']), undefined);
  drafts.keep(['a', 'b'], '');
  assert.equal(drafts.inputFor(['a', 'b']), '', 'an empty input is an input too');
  drafts.clear();
  assert.equal(drafts.inputFor(['a', 'b']), undefined);
});
