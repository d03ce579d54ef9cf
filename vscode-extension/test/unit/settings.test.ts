import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { bundledServerPath, explicitValue, resolveServer, serverSettings, type Inspected } from '../../src/settings';

test('explicit value: folder over workspace over user; defaults ignored', () => {
  assert.equal(explicitValue({ defaultValue: 1 }), undefined);
  assert.equal(explicitValue({ defaultValue: 1, globalValue: 2 }), 2);
  assert.equal(explicitValue({ globalValue: 2, workspaceValue: 3 }), 3);
  assert.equal(explicitValue({ globalValue: 2, workspaceValue: 3, workspaceFolderValue: 4 }), 4);
});

test('server settings hold explicit values only, nested by dots', () => {
  const values: Record<string, Inspected> = {
    tokenizer: { defaultValue: 'o200k_base', workspaceValue: 'cl100k_base' },
    driftThreshold: { defaultValue: 0.25 },
    'budget.files': { defaultValue: 6, globalValue: 4 },
    'budget.tokens': { defaultValue: null, workspaceValue: 8000 },
    'executor.kind': { defaultValue: 'preview', globalValue: 'exec' },
    'executor.command': { defaultValue: [], globalValue: ['agent', '--print'] },
    'executor.timeout': { defaultValue: '10m', globalValue: '' },
  };
  assert.deepEqual(serverSettings((k) => values[k]), {
    tokenizer: 'cl100k_base',
    budget: { files: 4, tokens: 8000 },
    executor: { kind: 'exec', command: ['agent', '--print'] },
  });
});

test('the executor comes from the user settings only, never the workspace', () => {
  const values: Record<string, Inspected> = {
    'executor.kind': { defaultValue: 'preview', workspaceValue: 'exec', workspaceFolderValue: 'exec' },
    'executor.command': { defaultValue: [], globalValue: ['mine'], workspaceValue: ['./tools/theirs'] },
  };
  assert.deepEqual(serverSettings((k) => values[k]), { executor: { command: ['mine'] } });
});

test('nothing set gives an empty object', () => {
  assert.deepEqual(serverSettings(() => ({ defaultValue: 'x' })), {});
});

const ext = '/ext';
const bundled = bundledServerPath(ext, 'linux', 'x64');

test('bundled server path', () => {
  assert.equal(bundled, path.join('/ext', 'server', 'linux-x64', 'ctxls'));
  assert.equal(bundledServerPath(ext, 'win32', 'x64'), path.join('/ext', 'server', 'win32-x64', 'ctxls.exe'));
});

test('server resolution order: setting, bundled, PATH', () => {
  const files = new Set([bundled, '/usr/local/bin/ctxls', '/opt/ctxls', '/ws/bin/ctxls', '/home/u/go/bin/ctxls']);
  const isFile = (p: string) => files.has(p);
  const base = { extensionPath: ext, platform: 'linux', arch: 'x64', envPath: '/usr/bin:/usr/local/bin', isFile };
  assert.deepEqual(resolveServer({ ...base, setting: '/opt/ctxls' }), { command: '/opt/ctxls', source: 'setting' });
  assert.deepEqual(resolveServer({ ...base, setting: 'bin/ctxls', workspaceFolder: '/ws' }), { command: '/ws/bin/ctxls', source: 'setting' });
  assert.deepEqual(resolveServer({ ...base, setting: '~/go/bin/ctxls', home: '/home/u' }), { command: '/home/u/go/bin/ctxls', source: 'setting' });
  assert.deepEqual(resolveServer({ ...base, setting: 'ctxls' }), { command: '/usr/local/bin/ctxls', source: 'setting' });
  assert.deepEqual(resolveServer({ ...base, setting: '' }), { command: bundled, source: 'bundled' });
  assert.deepEqual(resolveServer({ ...base, arch: 'arm64' }), { command: '/usr/local/bin/ctxls', source: 'path' });
});

test('server resolution errors name the problem', () => {
  const none = { extensionPath: ext, platform: 'darwin', arch: 'arm64', envPath: '/usr/bin', isFile: () => false };
  const missing = resolveServer({ ...none, setting: '/nope/ctxls' });
  assert.ok('error' in missing && /\/nope\/ctxls does not exist/.test(missing.error));
  const nothing = resolveServer(none);
  assert.ok('error' in nothing && /darwin-arm64/.test(nothing.error) && /ctxls.serverPath/.test(nothing.error));
});
