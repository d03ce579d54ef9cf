import { test } from 'node:test';
import assert from 'node:assert/strict';
import { orderMessages, renderConversation, renderSharedData } from '../../src/history';
import type { HistoryMessage } from '../../src/protocol';
import { execution } from './fixtures';

const messages: HistoryMessage[] = [
  { id: 2, conversationId: 'sess-1', role: 'assistant', content: 'Here is a plan\n```py\nx = 1\n```', mode: 'run', command: 'brainstorm', runId: 'r1', tokens: 40, createdAt: '2026-01-01T10:00:02Z' },
  { id: 1, conversationId: 'sess-1', role: 'user', content: 'add login', mode: 'run', command: 'brainstorm', runId: 'r1', tokens: 3, createdAt: '2026-01-01T10:00:01Z' },
  { id: 3, conversationId: 'sess-1', role: 'user', content: 'implement it', mode: 'run', command: 'implement', runId: 'r2', tokens: 4, createdAt: '2026-01-01T10:01:00Z' },
];

test('messages ordered by time', () => {
  assert.deepEqual(
    orderMessages(messages).map((m) => m.id),
    [1, 2, 3],
  );
});

test('messages ordered by instant, not by the text of their times', () => {
  // Times as the server writes them: trailing zeros of the fraction trimmed.
  const at = (id: number, createdAt: string): HistoryMessage => ({ id, conversationId: 'c', role: 'user', content: '', mode: 'run', tokens: 0, createdAt });
  assert.deepEqual(
    orderMessages([at(3, '2026-11-26T13:39:43Z'), at(2, '2026-11-26T13:39:42.918Z'), at(1, '2026-11-26T13:39:42.9Z'), at(4, '2026-11-26T13:39:43Z')]).map((m) => m.id),
    [1, 2, 3, 4],
  );
});

test('conversation shows roles, commands, run ids and tokens', () => {
  const md = renderConversation('sess-1', messages, 'o200k_base');
  assert.match(md, /^# Conversation sess-1/);
  assert.match(md, /3 messages · 47 tok \(o200k_base\) · commands: \/brainstorm → \/implement/);
  assert.match(md, /## 1\. User — \/brainstorm · run r1 · run mode · 3 tok/);
  assert.match(md, /## 2\. Assistant — \/brainstorm · run r1 · run mode · 40 tok/);
  assert.match(md, /## 3\. User — \/implement · run r2 · run mode · 4 tok/);
  // content with a fence inside gets a longer fence
  assert.match(md, /````text\nHere is a plan\n```py/);
});

test('empty conversation', () => {
  assert.match(renderConversation('x', []), /No messages recorded/);
});

test('shared data as JSON', () => {
  assert.deepEqual(JSON.parse(renderSharedData(execution({ sessionId: 's', sharedData: { a: [1] } }))), { a: [1] });
  assert.equal(renderSharedData(execution({ sessionId: 's' })), '{}\n');
});
