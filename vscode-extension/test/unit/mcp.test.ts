import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MCP_PROVIDER_ID, mcpApi, mcpServerSpecs } from '../../src/mcp';

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
