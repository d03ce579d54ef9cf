import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { confirmationText, executorDecision, formatCommandLine, serverAllowed, trustedServerSettings } from '../../src/trust';

const manifest = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8'));
const props = manifest.contributes.configuration.properties as Record<string, { scope?: string }>;

test('Restricted Mode is supported, limited, with the settings that run programs restricted', () => {
  const u = manifest.capabilities?.untrustedWorkspaces;
  assert.equal(u?.supported, 'limited');
  assert.ok(typeof u.description === 'string' && /Restricted Mode/.test(u.description));
  const restricted = new Set<string>(u.restrictedConfigurations);
  for (const key of ['ctxls.serverPath', 'ctxls.executor.kind', 'ctxls.executor.command', 'ctxls.executor.timeout']) {
    assert.ok(restricted.has(key), `${key} is not restricted`);
    assert.ok(props[key], `${key} is not a declared setting`);
  }
});

test('the server path and the executor are machine settings, out of reach of workspace settings', () => {
  for (const key of ['ctxls.serverPath', 'ctxls.executor.kind', 'ctxls.executor.command']) {
    assert.equal(props[key].scope, 'machine', key);
  }
});

test('in Restricted Mode the server is told to run nothing', () => {
  const settings = { tokenizer: 'estimate', executor: { kind: 'exec', command: ['agent'] } };
  assert.deepEqual(trustedServerSettings(settings, true), settings);
  assert.deepEqual(trustedServerSettings(settings, false), { tokenizer: 'estimate', executor: { kind: 'preview' } });
  assert.deepEqual(trustedServerSettings({}, false), { executor: { kind: 'preview' } });
});

test('a preview executor, or none, runs without asking', () => {
  assert.deepEqual(executorDecision(undefined), { kind: 'run' });
  assert.deepEqual(executorDecision({ kind: 'preview', command: [] }), { kind: 'run' });
  assert.deepEqual(executorDecision({ kind: 'exec', command: [], needsConsent: true }), { kind: 'run' });
});

test("the user's own command line, or one agreed to, runs without asking: the server says so", () => {
  assert.deepEqual(executorDecision({ kind: 'exec', command: ['claude', '-p'], source: 'settings' }), { kind: 'run' });
  assert.deepEqual(executorDecision({ kind: 'exec', command: ['./tools/agent'], source: 'workspace', needsConsent: false }), { kind: 'run' });
});

test("the workspace's command line not agreed to is confirmed, with the exact argv to grant", () => {
  const exec = { kind: 'exec', command: ['./tools/agent', '--all'], source: 'workspace', needsConsent: true };
  const d = executorDecision(exec);
  assert.equal(d.kind, 'confirm');
  assert.ok(d.kind === 'confirm' && d.commandLine === './tools/agent --all');
  // The argv granted is the one shown, element by element, not a joined string.
  assert.ok(d.kind === 'confirm' && d.command.length === 2 && d.command[1] === '--all');
  // A copy: what the server sent is not changed by the grant.
  assert.ok(d.kind === 'confirm' && d.command !== exec.command);
});

test('the command line shown cannot hide or merge arguments', () => {
  assert.equal(formatCommandLine(['claude', '-p']), 'claude -p');
  assert.equal(formatCommandLine(['sh', '-c', 'rm -rf ~; echo ok']), "sh -c 'rm -rf ~; echo ok'");
  assert.equal(formatCommandLine(["it's", '']), `'it'\\''s' ''`);
  assert.equal(formatCommandLine(['a\nb', 'c\u001b[2Kd']), "'a\\x0ab' 'c\\x1b[2Kd'");
  // Invisible marks are spelled out, as the server's FormatCommandLine does.
  assert.equal(formatCommandLine(['x\u202eexe.sh', 'a\u200bb', 'a b']), "'x\\u202eexe.sh' 'a\\u200bb' 'a b'");
  const text = confirmationText(formatCommandLine(['./tools/agent']));
  assert.ok(text.includes('./tools/agent') && /asks again/.test(text));
});

test('in Restricted Mode no server binary is started from the workspace', () => {
  const folders = ['/ws'];
  assert.equal(serverAllowed('/ws/bin/ctxls', folders, false), false);
  assert.equal(serverAllowed('/ws/bin/ctxls', folders, true), true);
  assert.equal(serverAllowed('/usr/local/bin/ctxls', folders, false), true);
  assert.equal(serverAllowed('/ws-other/ctxls', folders, false), true);
  assert.equal(serverAllowed('/home/u/go/bin/ctxls', ['/home/u/project', '/ws'], false), true);
});

test('the commands that run chains are offered only in trusted workspaces', () => {
  const menus = manifest.contributes.menus as Record<string, Array<{ command: string; when?: string }>>;
  const runners = new Set(['ctxls.runChain', 'ctxls.resumeChain', 'ctxls.execution.resume']);
  let seen = 0;
  for (const [menu, entries] of Object.entries(menus)) {
    for (const e of entries) {
      if (runners.has(e.command) && e.when !== 'false') {
        seen++;
        assert.ok(/(^|&& )isWorkspaceTrusted( &&|$)/.test(e.when ?? ''), `${menu}: ${e.command} shown when ${e.when}`);
      }
    }
  }
  assert.ok(seen >= 4, `only ${seen} menu entries run chains`);
  const welcome = manifest.contributes.viewsWelcome as Array<{ view: string; contents: string; when?: string }>;
  for (const w of welcome.filter((w) => w.contents.includes('command:ctxls.runChain'))) {
    assert.equal(w.when, 'isWorkspaceTrusted', `welcome of ${w.view} offers Run Chain untrusted`);
  }
});
