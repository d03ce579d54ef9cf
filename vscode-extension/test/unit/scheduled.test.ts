import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestMethod, RequestParams, RequestResult, TrustRevokeResult } from '../../src/protocol';
import { Scheduled, quietRequest } from '../../src/scheduled';

test('Scheduled runs the last of a burst once, after its delay', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let runs = 0;
  const s = new Scheduled(async () => {
    runs++;
  });
  s.schedule(500);
  s.schedule(100);
  t.mock.timers.tick(99);
  assert.equal(runs, 0, 'ran before its delay');
  t.mock.timers.tick(1);
  assert.equal(runs, 1, 'the burst ran once');
  t.mock.timers.tick(1000);
  assert.equal(runs, 1, 'the replaced timer ran as well');
  s.schedule(10);
  s.dispose();
  t.mock.timers.tick(100);
  assert.equal(runs, 1, 'ran after dispose');
});

test('Scheduled tells an update that a later one started', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const latest: Array<() => boolean> = [];
  const s = new Scheduled(async (l) => {
    latest.push(l);
  });
  s.schedule(0);
  t.mock.timers.tick(0);
  assert.equal(latest[0](), true, 'the only update is not the latest');
  s.schedule(0);
  t.mock.timers.tick(0);
  assert.deepEqual(
    latest.map((l) => l()),
    [false, true],
    'the first update is still the latest after a second started',
  );
});

test('quietRequest logs a failure and gives undefined', async () => {
  const lines: string[] = [];
  const trust: TrustRevokeResult = { revoked: true };
  const server = {
    output: { appendLine: (l: string) => lines.push(l) },
    request: async <M extends RequestMethod>(method: M, _params: RequestParams<M>): Promise<RequestResult<M>> => {
      if (method === 'ctxls/trust') {
        throw new Error('boom');
      }
      return trust as RequestResult<M>;
    },
  };
  assert.deepEqual(await quietRequest(server, 'ctxls/trust/revoke', {}), { revoked: true });
  assert.equal(await quietRequest(server, 'ctxls/trust', {}), undefined);
  assert.deepEqual(lines, ['[ctxls] ctxls/trust: Error: boom']);
});
