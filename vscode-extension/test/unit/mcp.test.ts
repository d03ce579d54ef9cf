import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MCP_PROVIDER_ID, mcpApi, mcpServerDefinitions, mcpServerSpecs, type McpProviderEnv } from '../../src/mcp';
import { bundledServerPath } from '../../src/settings';

test('one ctxls mcp per workspace folder, with the resolved binary', () => {
  const found = { command: '/opt/ctxls/bin/ctxls', source: 'setting' as const };
  assert.deepEqual(mcpServerSpecs(found, ['/w/app']), [
    { label: 'ctxls', command: '/opt/ctxls/bin/ctxls', args: ['mcp', '--dir', '/w/app'], cwd: '/w/app' },
  ]);
  const two = mcpServerSpecs(found, ['/w/app', '/w/docs']);
  assert.deepEqual(
    two.map((s) => [s.label, s.args]),
    [
      ['ctxls: app', ['mcp', '--dir', '/w/app']],
      ['ctxls: docs', ['mcp', '--dir', '/w/docs']],
    ],
  );
});

test('no MCP server without a binary or a folder', () => {
  assert.deepEqual(mcpServerSpecs({ error: 'no ctxls' }, ['/w/app']), []);
  assert.deepEqual(mcpServerSpecs({ command: 'ctxls', source: 'path' }, []), []);
});

test('the MCP API is used only where VS Code has it', () => {
  assert.equal(mcpApi(undefined), undefined);
  assert.equal(mcpApi({}), undefined);
  assert.equal(mcpApi({ registerMcpServerDefinitionProvider: 'no' }), undefined);
  const lm = { registerMcpServerDefinitionProvider: () => ({ dispose() {} }) };
  assert.equal(mcpApi(lm), lm);
});

test('package.json declares the provider the extension registers', () => {
  const manifest = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8'));
  const ids = (manifest.contributes.mcpServerDefinitionProviders ?? []).map((p: { id: string }) => p.id);
  assert.deepEqual(ids, [MCP_PROVIDER_ID]);
});

/** Stands for vscode.McpStdioServerDefinition. */
class FakeDefinition {
  cwd?: string;
  constructor(
    readonly label: string,
    readonly command: string,
    readonly args?: string[],
    readonly env?: Record<string, string | number | null>,
    readonly version?: string,
  ) {}
}

/** A provider environment with a bundled binary for linux-x64 and ctxls on PATH. */
function providerEnv(over: Partial<McpProviderEnv<string>> & { files?: string[] } = {}) {
  const files = new Set(over.files ?? [bundledServerPath('/ext', 'linux', 'x64'), '/usr/bin/ctxls']);
  const logged: string[] = [];
  const bundled: string[] = [];
  const env: McpProviderEnv<string> = {
    folders: () => ['/w/app'],
    serverPath: () => '',
    trusted: () => true,
    locate: { extensionPath: '/ext', platform: 'linux', arch: 'x64', envPath: '/usr/bin', home: '/home/u', isFile: (p) => files.has(p) },
    version: '1.2.3',
    Definition: FakeDefinition,
    file: (p) => `file://${p}`,
    bundled: (c) => bundled.push(c),
    log: (m) => logged.push(m),
    ...over,
  };
  return { env, logged, bundled };
}

test('the provider defines ctxls mcp with the bundled binary first, made executable', () => {
  const { env, bundled } = providerEnv({ folders: () => ['/w/app', '/w/docs'] });
  const defs = mcpServerDefinitions(env) as unknown as FakeDefinition[];
  const exe = bundledServerPath('/ext', 'linux', 'x64');
  assert.deepEqual(
    defs.map((d) => ({ label: d.label, command: d.command, args: d.args, cwd: d.cwd, version: d.version })),
    [
      { label: 'ctxls: app', command: exe, args: ['mcp', '--dir', '/w/app'], cwd: 'file:///w/app', version: '1.2.3' },
      { label: 'ctxls: docs', command: exe, args: ['mcp', '--dir', '/w/docs'], cwd: 'file:///w/docs', version: '1.2.3' },
    ],
  );
  assert.deepEqual(bundled, [exe]);
});

test('the provider uses ctxls.serverPath over the bundled binary, and PATH without either', () => {
  const configured = providerEnv({ serverPath: () => '/opt/ctxls', files: ['/opt/ctxls', bundledServerPath('/ext', 'linux', 'x64')] });
  const [d] = mcpServerDefinitions(configured.env) as unknown as FakeDefinition[];
  assert.equal(d.command, '/opt/ctxls');
  assert.deepEqual(d.args, ['mcp', '--dir', '/w/app']);
  assert.deepEqual(configured.bundled, []);

  const onPath = providerEnv({ files: ['/usr/bin/ctxls'] });
  assert.equal((mcpServerDefinitions(onPath.env)[0] as unknown as FakeDefinition).command, '/usr/bin/ctxls');
});

test('the provider defines nothing without a binary, or with one inside an untrusted workspace', () => {
  const none = providerEnv({ files: [] });
  assert.deepEqual(mcpServerDefinitions(none.env), []);
  assert.match(none.logged.join('\n'), /No ctxls server/);

  // A user-level relative serverPath resolves against the workspace.
  const inside = { serverPath: () => 'bin/ctxls', files: ['/w/app/bin/ctxls'] };
  const untrusted = providerEnv({ ...inside, trusted: () => false });
  assert.deepEqual(mcpServerDefinitions(untrusted.env), []);
  assert.match(untrusted.logged.join('\n'), /not trusted/);
  const trusted = providerEnv(inside);
  assert.equal((mcpServerDefinitions(trusted.env)[0] as unknown as FakeDefinition).command, '/w/app/bin/ctxls');
});
