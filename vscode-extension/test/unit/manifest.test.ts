import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MIRRORED_KEYS } from '../../src/settings';
import { itemsOf, warningText } from '../../src/protocol';

// Tests run from the extension directory (npm test).
const root = process.cwd();
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const sources = readdirSync(join(root, 'src'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(join(root, 'src', f), 'utf8'))
  .join('\n');

const declared = new Set<string>(manifest.contributes.commands.map((c: { command: string }) => c.command));

test('every registered command is declared, and every declared one registered', () => {
  const registered = new Set([...sources.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]));
  assert.ok(registered.size > 10);
  for (const c of registered) {
    assert.ok(declared.has(c), `${c} is registered but not declared in package.json`);
  }
  for (const c of declared) {
    assert.ok(registered.has(c), `${c} is declared but never registered`);
  }
});

test('execution menus fit the rows they are shown on', () => {
  // The item's context value (see executionsTree.ts) against each menu
  // entry's `viewItem =~ /.../` clause.
  const entries = (manifest.contributes.menus['view/item/context'] as Array<{ command: string; when: string }>).filter((e) =>
    e.when.includes('view == ctxls.executions'),
  );
  const shownOn = (value: string) =>
    entries
      .filter((e) => {
        const m = /viewItem =~ \/(.+)\/(?:\s|$)/.exec(e.when);
        return m !== null && new RegExp(m[1]).test(value);
      })
      .map((e) => e.command.replace('ctxls.execution.', ''))
      .sort();
  assert.deepEqual(shownOn('ctxlsExecutionCommand'), [], 'a step row offers no execution actions');
  assert.deepEqual(shownOn('ctxlsExecution'), ['delete', 'setCurrent', 'showHistory', 'showSharedData']);
  assert.deepEqual(shownOn('ctxlsExecution.resumable'), ['delete', 'resume', 'setCurrent', 'showHistory', 'showSharedData']);
  assert.deepEqual(shownOn('ctxlsExecution.current'), ['delete', 'showHistory', 'showSharedData']);
  assert.deepEqual(shownOn('ctxlsExecution.current.resumable'), ['delete', 'resume', 'showHistory', 'showSharedData']);
});

test('menus refer to declared commands and views', () => {
  const views = new Set<string>(Object.values(manifest.contributes.views).flat().map((v) => (v as { id: string }).id));
  for (const [menu, entries] of Object.entries(manifest.contributes.menus)) {
    for (const e of entries as Array<{ command: string; when?: string }>) {
      assert.ok(declared.has(e.command), `${menu}: ${e.command} is not declared`);
      for (const m of (e.when ?? '').matchAll(/view == ([\w.]+)/g)) {
        assert.ok(views.has(m[1]), `${menu}: unknown view ${m[1]}`);
      }
    }
  }
});

test('every mirrored setting is declared with a description', () => {
  const props = manifest.contributes.configuration.properties;
  for (const key of [...MIRRORED_KEYS, 'serverPath', 'trace.server']) {
    const p = props[`ctxls.${key}`];
    assert.ok(p, `ctxls.${key} is not declared`);
    assert.ok(p.markdownDescription || p.description, `ctxls.${key} has no description`);
  }
});

test('the views live in their own activity-bar container', () => {
  const containers = manifest.contributes.viewsContainers.activitybar.map((c: { id: string }) => c.id);
  assert.deepEqual(containers, ['ctxls']);
  assert.deepEqual(
    manifest.contributes.views.ctxls.map((v: { id: string }) => v.id),
    ['ctxls.contextBrowser', 'ctxls.executions', 'ctxls.sessionCost'],
  );
});

test('protocol helpers', () => {
  assert.deepEqual(itemsOf(undefined), []);
  assert.deepEqual(itemsOf({ items: [1, 2] }), [1, 2]);
  assert.equal(warningText('plain step warning'), 'plain step warning');
  assert.equal(warningText({ message: 'with message', code: 'x' }), 'with message');
});

test('the README settings table lists every setting with its default', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const rows = new Map(
    [...readme.matchAll(/^\| `(ctxls\.[\w.]+)` \| ([^|]+) \|/gm)].map((m) => [m[1], m[2].trim()] as const),
  );
  const props = manifest.contributes.configuration.properties as Record<string, { default: unknown }>;
  assert.deepEqual([...rows.keys()].sort(), Object.keys(props).sort());
  const shown = (v: unknown) =>
    v === null ? '(none)' : typeof v === 'string' && v !== '' ? `\`${v}\`` : `\`${JSON.stringify(v)}\``;
  for (const [key, p] of Object.entries(props)) {
    assert.equal(rows.get(key), shown(p.default), `README default of ${key}`);
  }
});
