// Renders a chain preview (`ctxls/chain/preview`) as a self-contained HTML
// page for a webview, and as markdown. No `vscode` import: unit-tested.

import type { ChainPreviewResult, ChainStep, StepContextItem } from './protocol';
import type { ExecutorInfo } from './protocol.gen';
import { warningText } from './protocol';
import { escapeHtml, fenceFor, formatChain, formatTokens } from './format';
import { formatCommandLine } from './trust';

/**
 * The command line a step would run, as a shell would read it back, when
 * the executor in effect is `exec` with an argv; undefined when running
 * the chain runs no program (a preview executor).
 */
export function stepCommandLine(executor: ExecutorInfo | undefined): string | undefined {
  if (!executor || executor.kind !== 'exec' || !Array.isArray(executor.command) || executor.command.length === 0) {
    return undefined;
  }
  return formatCommandLine(executor.command);
}

/** Steps of a preview or run result. */
export function stepsOf(result: ChainPreviewResult | null | undefined): ChainStep[] {
  return Array.isArray(result?.steps) ? result.steps : [];
}

/** True when a context item came from the session cache. */
export function isCacheHit(c: StepContextItem): boolean {
  return c.cached === true;
}

/** `domain:topic#Section` of a context item. */
export function contextLabel(c: StepContextItem): string {
  if (c.reference) {
    return c.reference;
  }
  const base = c.domain ? `${c.domain}:${c.topic}` : c.id;
  return c.section ? `${base}#${c.section}` : base;
}

/** Figures of one step, computed when the server did not send them. */
export interface StepSummary {
  index: number;
  command: string;
  contextTokens: number;
  promptTokens?: number;
  cacheHits: number;
  loaded: number;
  dropped: number;
}

/** Summary figures of one step. */
export function summarizeStep(step: ChainStep, index: number): StepSummary {
  const context = step.context ?? [];
  const contextTokens =
    typeof step.contextTokens === 'number'
      ? step.contextTokens
      : context.reduce((s, c) => s + (typeof c.tokens === 'number' ? c.tokens : 0), 0);
  const cacheHits = typeof step.cacheHits === 'number' ? step.cacheHits : context.filter(isCacheHit).length;
  return {
    index: typeof step.index === 'number' ? step.index : index,
    command: step.command,
    contextTokens,
    promptTokens: step.promptTokens,
    cacheHits,
    loaded: context.length,
    dropped: (step.dropped ?? []).length,
  };
}

/** Summary of the whole preview. */
export function summarizePreview(result: ChainPreviewResult | null | undefined): {
  steps: StepSummary[];
  totalTokens: number;
  cacheHits: number;
} {
  const steps = stepsOf(result).map(summarizeStep);
  const totalTokens =
    typeof result?.totalTokens === 'number'
      ? result.totalTokens
      : steps.reduce((s, st) => s + (st.promptTokens ?? st.contextTokens), 0);
  const cacheHits =
    typeof result?.cacheHits === 'number' ? result.cacheHits : steps.reduce((s, st) => s + st.cacheHits, 0);
  return { steps, totalTokens, cacheHits };
}

const STYLE = `
body { font-family: var(--vscode-font-family, sans-serif); font-size: var(--vscode-font-size, 13px);
  color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 1.5em 2em; line-height: 1.45; }
h1 { font-size: 1.5em; margin-bottom: .2em; }
h2 { font-size: 1.2em; margin: 1.6em 0 .4em; border-bottom: 1px solid var(--vscode-panel-border, #8884); padding-bottom: .2em; }
.summary { opacity: .85; margin-bottom: 1em; }
.input { white-space: pre-wrap; border-left: 3px solid var(--vscode-textLink-foreground, #36c); padding: .3em .8em; margin: .5em 0 1em; }
table { border-collapse: collapse; margin: .4em 0 .8em; min-width: 60%; }
th, td { text-align: left; padding: .2em .9em .2em 0; border-bottom: 1px solid var(--vscode-panel-border, #8883); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 0 .5em; border-radius: .8em; font-size: .85em;
  background: var(--vscode-badge-background, #ddd); color: var(--vscode-badge-foreground, #000); }
.hit { background: var(--vscode-testing-iconPassed, #2a2); color: #fff; }
.miss { background: var(--vscode-charts-blue, #36c); color: #fff; }
.dropped { opacity: .65; text-decoration: line-through; }
.warn { color: var(--vscode-editorWarning-foreground, #b80); }
.exec { border-left: 3px solid var(--vscode-editorWarning-foreground, #b80); padding: .3em .8em; margin: .5em 0; }
details { margin: .4em 0; }
pre { white-space: pre-wrap; background: var(--vscode-textCodeBlock-background, #8881); padding: .6em; max-height: 30em; overflow: auto; }
code { font-family: var(--vscode-editor-font-family, monospace); }
`;

function contextRows(items: readonly StepContextItem[], dropped: boolean): string {
  return items
    .map((c) => {
      const hit = isCacheHit(c);
      const badge = dropped
        ? '<span class="badge">dropped</span>'
        : hit
          ? '<span class="badge hit">cache hit</span>'
          : '<span class="badge miss">loaded</span>';
      return (
        `<tr class="${dropped ? 'dropped' : ''}">` +
        `<td><code>${escapeHtml(contextLabel(c))}</code></td>` +
        `<td>${escapeHtml(c.title ?? '')}</td>` +
        `<td>${escapeHtml(c.reason ?? c.loadingStrategy ?? '')}</td>` +
        `<td>${badge}</td>` +
        `<td class="num">${escapeHtml(formatTokens(c.tokens))}</td>` +
        `</tr>`
      );
    })
    .join('\n');
}

function stepSection(step: ChainStep, index: number, total: number, commandLine: string | undefined): string {
  const s = summarizeStep(step, index);
  const context = step.context ?? [];
  const dropped = step.dropped ?? [];
  const parts: string[] = [];
  parts.push(
    `<section class="step" data-step="${index + 1}">` +
      `<h2>Step ${index + 1} of ${total}: /${escapeHtml(step.command)}</h2>`,
  );
  const figures = [
    `context ${formatTokens(s.contextTokens)}`,
    `${s.loaded} ${s.loaded === 1 ? 'topic' : 'topics'}`,
    `${s.cacheHits} cache ${s.cacheHits === 1 ? 'hit' : 'hits'}`,
  ];
  if (typeof s.promptTokens === 'number') {
    figures.unshift(`prompt ${formatTokens(s.promptTokens)}`);
  }
  if (s.dropped > 0) {
    figures.push(`${s.dropped} dropped by the budget`);
  }
  parts.push(`<div class="summary">${escapeHtml(figures.join(' · '))}</div>`);
  if (commandLine) {
    parts.push(
      `<div class="exec">Running the chain runs <code>${escapeHtml(commandLine)}</code> for this step, ` +
        'with the prompt below on its standard input.</div>',
    );
  }
  const breakdown: Array<[string, number | undefined]> = [
    ['Command', step.commandTokens],
    ['Memory', step.memoryTokens],
    ['Context', s.contextTokens],
    ['Shared data', step.sharedDataTokens],
    ['History', step.historyTokens],
    ['Input', step.inputTokens],
    ['Headings and separators', step.framingTokens],
  ];
  const known = breakdown.filter(([, v]) => typeof v === 'number');
  if (known.length > 1) {
    parts.push(
      '<table class="breakdown"><tr><th>Part</th><th class="num">Tokens</th></tr>' +
        known.map(([k, v]) => `<tr><td>${k}</td><td class="num">${escapeHtml(formatTokens(v))}</td></tr>`).join('') +
        '</table>',
    );
  }
  if (context.length > 0 || dropped.length > 0) {
    parts.push(
      '<table class="context"><tr><th>Reference</th><th>Title</th><th>Why</th><th>Source</th><th class="num">Tokens</th></tr>' +
        contextRows(context, false) +
        contextRows(dropped, true) +
        '</table>',
    );
  } else {
    parts.push('<p>No context loaded.</p>');
  }
  for (const w of step.warnings ?? []) {
    parts.push(`<p class="warn">⚠ ${escapeHtml(warningText(w))}</p>`);
  }
  if (step.prompt) {
    parts.push(`<details><summary>Assembled prompt</summary><pre>${escapeHtml(step.prompt)}</pre></details>`);
  }
  parts.push('</section>');
  return parts.join('\n');
}

/**
 * A complete HTML page showing every step of a preview. `cspSource` is the
 * webview's CSP source; the page runs no script.
 */
export function renderChainPreviewHtml(
  result: ChainPreviewResult | null | undefined,
  commands: readonly string[],
  input: string,
  cspSource = '',
  executor?: ExecutorInfo,
): string {
  const steps = stepsOf(result);
  const commandLine = stepCommandLine(executor);
  const sum = summarizePreview(result);
  const csp = `default-src 'none'; style-src 'unsafe-inline' ${cspSource}; img-src ${cspSource} data:;`.replace(
    /\s+;/g,
    ';',
  );
  const body: string[] = [];
  body.push(`<h1>Chain preview: ${escapeHtml(formatChain(commands.map((c) => '/' + c)))}</h1>`);
  body.push(
    `<div class="summary" id="totals">${steps.length} ${steps.length === 1 ? 'step' : 'steps'} · ` +
      `${escapeHtml(formatTokens(sum.totalTokens))} in all · ${sum.cacheHits} cache ${sum.cacheHits === 1 ? 'hit' : 'hits'}` +
      (result?.budget
        ? escapeHtml(
            ` · budget ${result.budget.files ?? '?'} files / ${
              typeof result.budget.tokens === 'number' ? formatTokens(result.budget.tokens) : 'no token limit'
            } per step`,
          )
        : '') +
      (result?.model?.contextWindow
        ? escapeHtml(
            ` · model ${result.model.model} (${formatTokens(result.model.contextWindow)} window, ` +
              `history ${formatTokens(result.model.historyBudget)})`,
          )
        : '') +
      ` · nothing has run</div>`,
  );
  if (input) {
    body.push(`<div class="input"><strong>Input</strong><br>${escapeHtml(input)}</div>`);
  }
  for (const w of result?.warnings ?? []) {
    body.push(`<p class="warn">⚠ ${escapeHtml(warningText(w))}</p>`);
  }
  if (steps.length === 0) {
    body.push('<p>The server returned no steps.</p>');
  }
  steps.forEach((s, i) => body.push(stepSection(s, i, steps.length, commandLine)));
  return (
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="UTF-8">' +
    `<meta http-equiv="Content-Security-Policy" content="${csp.replace(/["<>]/g, '')}">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1.0">' +
    `<title>Chain preview</title><style>${STYLE}</style></head><body>\n` +
    body.join('\n') +
    '\n</body></html>'
  );
}

/** The same preview as markdown (for copying or saving). */
export function renderChainPreviewMarkdown(
  result: ChainPreviewResult | null | undefined,
  commands: readonly string[],
  input: string,
  executor?: ExecutorInfo,
): string {
  const steps = stepsOf(result);
  const sum = summarizePreview(result);
  const commandLine = stepCommandLine(executor);
  const out: string[] = [];
  out.push(`# Chain preview: ${formatChain(commands.map((c) => '/' + c))}`);
  out.push('');
  out.push(
    `${steps.length} ${steps.length === 1 ? 'step' : 'steps'} · ${formatTokens(sum.totalTokens)} in all · ` +
      `${sum.cacheHits} cache ${sum.cacheHits === 1 ? 'hit' : 'hits'}`,
  );
  if (input) {
    out.push('', `> ${input.split('\n').join('\n> ')}`);
  }
  steps.forEach((step, i) => {
    const s = summarizeStep(step, i);
    out.push('', `## Step ${i + 1}: /${step.command}`, '');
    const head = [`context ${formatTokens(s.contextTokens)}`, `${s.cacheHits} cache hits`];
    if (typeof s.promptTokens === 'number') {
      head.unshift(`prompt ${formatTokens(s.promptTokens)}`);
    }
    out.push(head.join(' · '), '');
    if (commandLine) {
      const fence = fenceFor(commandLine);
      out.push('Running the chain runs, with the prompt on its standard input:', '', fence, commandLine, fence, '');
    }
    const rows = [...(step.context ?? []).map((c) => [c, false] as const), ...(step.dropped ?? []).map((c) => [c, true] as const)];
    if (rows.length > 0) {
      out.push('| reference | source | tokens |', '|---|---|---:|');
      for (const [c, dropped] of rows) {
        const source = dropped ? 'dropped' : isCacheHit(c) ? 'cache hit' : 'loaded';
        out.push(`| \`${contextLabel(c)}\` | ${source} | ${formatTokens(c.tokens)} |`);
      }
    }
    for (const w of step.warnings ?? []) {
      out.push('', `> ⚠ ${warningText(w)}`);
    }
    if (step.prompt) {
      const fence = fenceFor(step.prompt);
      out.push('', '<details><summary>Assembled prompt</summary>', '', fence, step.prompt, fence, '', '</details>');
    }
  });
  return out.join('\n') + '\n';
}
