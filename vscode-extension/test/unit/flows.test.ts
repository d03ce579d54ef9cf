import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildChainFlow, deleteExecutionFlow, progressIncrement, progressText } from '../../src/flows';
import type { CommandChoice, PickItem } from '../../src/quickPick';
import { commandInfo, deleteResult } from './fixtures';

test('delete sends the token back after confirmation', async () => {
  const calls: Array<{ sessionId: string; confirmToken?: string }> = [];
  const prompts: string[] = [];
  const res = await deleteExecutionFlow(
    's1',
    async (p) => {
      calls.push(p);
      return p.confirmToken
        ? deleteResult({ sessionId: 's1', deleted: true, message: 'execution s1 deleted' })
        : deleteResult({ sessionId: 's1', confirmToken: 'tok-123', message: 'call ctxls/execution/delete again with this confirmToken' });
    },
    async (m) => {
      prompts.push(m);
      return true;
    },
  );
  assert.equal(res.outcome, 'deleted');
  assert.deepEqual(calls, [{ sessionId: 's1' }, { sessionId: 's1', confirmToken: 'tok-123' }]);
  assert.deepEqual(prompts, ['Delete execution s1 and everything it recorded?']);
});

test('declining sends no second request', async () => {
  const calls: unknown[] = [];
  const res = await deleteExecutionFlow(
    's1',
    async (p) => {
      calls.push(p);
      return deleteResult({ sessionId: 's1', confirmToken: 't' });
    },
    async () => false,
  );
  assert.equal(res.outcome, 'declined');
  assert.equal(calls.length, 1);
});

test('refusal without a token is a failure with the server message', async () => {
  const res = await deleteExecutionFlow('cur', async () => deleteResult({ sessionId: 'cur', message: 'the current execution cannot be deleted' }), async () => true);
  assert.deepEqual(res, { outcome: 'failed', message: 'the current execution cannot be deleted' });
});

test('a failed second request is a failure, not a deletion', async () => {
  for (const second of [undefined, deleteResult({ sessionId: 's1', message: 'the confirmToken has expired' })]) {
    const res = await deleteExecutionFlow(
      's1',
      async (p) => (p.confirmToken ? second : deleteResult({ sessionId: 's1', confirmToken: 't' })),
      async () => true,
    );
    assert.equal(res.outcome, 'failed');
    if (second) {
      assert.equal(res.message, 'the confirmToken has expired');
    }
  }
});

test('building a chain: pick, undo, done', async () => {
  const script: Array<(items: Array<PickItem<CommandChoice>>) => PickItem<CommandChoice> | undefined> = [
    (items) => items.find((i) => i.label === 'brainstorm'),
    (items) => items.find((i) => i.label === 'test'),
    (items) => items.find((i) => i.value.kind === 'undo'),
    (items) => items.find((i) => i.label === 'implement'),
    (items) => items.find((i) => i.value.kind === 'done'),
  ];
  let round = 0;
  const got = await buildChainFlow(
    [commandInfo({ name: 'brainstorm' }), commandInfo({ name: 'implement' }), commandInfo({ name: 'test' })],
    async (items) => script[round++](items),
  );
  assert.deepEqual(got, ['brainstorm', 'implement']);
});

test('escape cancels the chain builder', async () => {
  const got = await buildChainFlow([commandInfo({ name: 'a' })], async () => undefined);
  assert.equal(got, undefined);
});

test('progress helpers', () => {
  assert.equal(progressText({ title: 'Chain', message: 'step 2/3: implement' }), 'Chain: step 2/3: implement');
  assert.equal(progressText({ message: 'x' }), 'x');
  assert.equal(progressIncrement(0, 33), 33);
  assert.equal(progressIncrement(33, 66), 33);
  assert.equal(progressIncrement(66, 50), 0);
  assert.equal(progressIncrement(90, 150), 10);
  assert.equal(progressIncrement(10, undefined), 0);
});
