import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildCommandNodes,
  buildExecutionNodes,
  currentSessionId,
  executionState,
  isResumable,
} from '../../src/executionsTree';
import type { Execution, ExecutionListResult } from '../../src/protocol';
import { commandExecution, execution } from './fixtures';

const done: Execution = execution({
  sessionId: 'aaaaaaaa-1111-2222-3333-444444444444',
  startedAt: '2026-01-01T10:00:00Z',
  state: 'completed',
  plan: { commands: ['brainstorm', 'implement'], input: 'x' },
  commandHistory: [
    commandExecution({ command: 'brainstorm', completedAt: '2026-01-01T10:01:00Z' }),
    commandExecution({
      command: 'implement',
      step: 1,
      attempts: 2,
      completedAt: '2026-01-01T10:02:00Z',
      contextLoaded: ['python:fastapi_patterns'],
    }),
  ],
});
const interrupted: Execution = execution({
  sessionId: 'bbbbbbbb-1111-2222-3333-444444444444',
  startedAt: '2026-01-02T10:00:00Z',
  state: 'interrupted',
  plan: { commands: ['brainstorm', 'implement', 'test'], input: 'x' },
  commandHistory: [commandExecution({ command: 'brainstorm', completedAt: '2026-01-02T10:01:00Z' })],
});

// The tree takes list items and full executions alike; the fixtures are
// full executions.
function list(items: Execution[], current = ''): ExecutionListResult {
  return { items: items as ExecutionListResult['items'], current, warnings: [] };
}

test('current execution comes first, then newest', () => {
  const nodes = buildExecutionNodes(list([interrupted, { ...done, isCurrent: true }], done.sessionId));
  assert.deepEqual(
    nodes.map((n) => n.sessionId),
    [done.sessionId, interrupted.sessionId],
  );
  assert.equal(nodes[0].current, true);
  assert.equal(nodes[0].contextValue, 'ctxlsExecution.current');
  assert.equal(nodes[1].contextValue, 'ctxlsExecution.resumable');
  assert.match(nodes[0].description, /^● current · completed/);
  assert.equal(nodes[0].label, 'brainstorm → implement');
});

test('newest first by instant, not by the text of the times', () => {
  // Times as the server writes them: trailing zeros of the fraction trimmed.
  const at = (sessionId: string, startedAt: string) => execution({ sessionId, startedAt, state: 'completed' });
  const nodes = buildExecutionNodes(list([at('a', '2026-11-26T13:39:42.9Z'), at('c', '2026-11-26T13:39:43Z'), at('b', '2026-11-26T13:39:42.918Z')]));
  assert.deepEqual(
    nodes.map((n) => n.sessionId),
    ['c', 'b', 'a'],
  );
});

test('current marker from the result field', () => {
  const result = list([done, interrupted], interrupted.sessionId);
  assert.equal(currentSessionId(result), interrupted.sessionId);
  assert.equal(currentSessionId(list([done])), undefined);
  const nodes = buildExecutionNodes(result);
  assert.equal(nodes[0].sessionId, interrupted.sessionId);
  assert.equal(nodes[0].icon, 'star-full');
});

test('state: the server state, else derived from the commands', () => {
  assert.equal(executionState(interrupted), 'interrupted');
  const noState = (e: Partial<Execution>) => ({ ...execution({ sessionId: 'x' }), state: '', ...e });
  assert.equal(executionState(noState({})), 'pending');
  assert.equal(executionState(noState({ commandHistory: [commandExecution({ command: 'a', status: 'failed' })] })), 'failed');
  assert.equal(
    executionState(noState({ commandHistory: [commandExecution({ command: 'a', status: 'running', completedAt: null })] })),
    'running',
  );
});

test('command nodes show status, attempts and pending steps', () => {
  const nodes = buildCommandNodes(interrupted);
  assert.deepEqual(
    nodes.map((n) => [n.label, n.status]),
    [
      ['1. brainstorm', 'success'],
      ['2. implement', 'pending'],
      ['3. test', 'pending'],
    ],
  );
  const doneNodes = buildCommandNodes(done);
  assert.equal(doneNodes[1].description, 'success · 2 attempts · 1 context');
  assert.equal(doneNodes[0].description, 'success · 1 attempt');
  assert.match(doneNodes[1].tooltip, /Attempts: 2/);
});

test('resumable unless completed', () => {
  assert.equal(isResumable(done), false);
  assert.equal(isResumable(interrupted), true);
});

test('no list (failed request) and items without a session id', () => {
  assert.deepEqual(buildExecutionNodes(undefined), []);
  assert.deepEqual(buildExecutionNodes(list([])), []);
  assert.equal(buildExecutionNodes(list([{} as Execution, done])).length, 1);
});

test('store summaries: isCurrent, created, summary counts', () => {
  const nodes = buildExecutionNodes(
    list(
      [
        execution({
          sessionId: 'cccccccc-1111-2222-3333-444444444444',
          state: 'running',
          created: '2026-03-01T09:00:00Z',
          isCurrent: true,
          summary: { currentCommand: 'implement', commandsCompleted: 1, commandsFailed: 0, commandsTotal: 3, currentPrompt: '', tasksCompleted: 0 },
        }),
        execution({
          sessionId: 'dddddddd-1111-2222-3333-444444444444',
          state: 'new',
          created: '2026-03-02T09:00:00Z',
          summary: { currentCommand: '', commandsCompleted: 0, commandsFailed: 0, commandsTotal: 0, currentPrompt: '', tasksCompleted: 0 },
        }),
      ],
      'cccccccc-1111-2222-3333-444444444444',
    ),
  );
  assert.equal(nodes[0].current, true);
  assert.equal(nodes[0].label, 'execution cccccccc');
  assert.equal(nodes[0].description, '● current · running · 1/3 done · latest /implement · 2026-03-01 09:00 · cccccccc');
  assert.match(nodes[0].tooltip, /Latest command: implement/);
  assert.equal(nodes[1].label, 'execution dddddddd');
  assert.equal(nodes[1].description, 'new · 2026-03-02 09:00 · dddddddd');
});

test('full execution: plan commands and commandHistory with null completedAt', () => {
  const e = execution({
    sessionId: 'e1',
    state: 'interrupted',
    plan: { commands: ['brainstorm', 'implement', 'test'], input: 'x' },
    commandHistory: [
      commandExecution({ command: 'brainstorm', completedAt: '2026-03-01T09:01:00Z' }),
      commandExecution({ command: 'implement', step: 1, status: 'interrupted', attempts: 2, completedAt: null }),
    ],
  });
  const node = buildExecutionNodes(list([e]))[0];
  assert.equal(node.label, 'brainstorm → implement → test');
  assert.deepEqual(
    buildCommandNodes(e).map((n) => `${n.label}: ${n.description}`),
    ['1. brainstorm: success · 1 attempt', '2. implement: interrupted · 2 attempts', '3. test: pending'],
  );
});
