// The editor's views built from what the language server answers for the
// workspace lsp's TestFrontendsAgree compares the command line, MCP and
// the editor on; that test keeps testdata/frontends.json equal to the
// server's answers and the answers equal to `ctxls catalog` and
// `ctxls search`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildContextTree } from '../../src/contextTree';
import type { InventoryResult, InventorySearchResult } from '../../src/protocol';
import { inventoryPickItems } from '../../src/quickPick';

const answers = JSON.parse(readFileSync(join(process.cwd(), 'test/unit/testdata/frontends.json'), 'utf8')) as {
  inventory: InventoryResult;
  search: Record<string, InventorySearchResult>;
};

test('the Context Library tree lists every entry of the inventory, once, and totals it', () => {
  const tree = buildContextTree(answers.inventory);
  const listed = tree.groups.flatMap((g) => g.children.map((c) => `${c.entryKind} ${c.reference} ${c.tokens}`));
  const want = answers.inventory.entries.map((e) => `${e.kind} ${e.reference} ${e.tokens}`);
  assert.deepEqual(listed.slice().sort(), want.slice().sort());
  assert.deepEqual(
    tree.groups.map((g) => g.label),
    ['ops', 'web', 'Skills', 'Commands', 'Subagents', 'Rules'],
  );
  assert.equal(
    tree.summary,
    `2 domains · 2 topics · 1 skill · 1 command · 1 subagent · 1 rule · ${answers.inventory.tokens} tok (${answers.inventory.tokenizer})`,
  );
});

test('Search Context lists what the server found, in its order', () => {
  assert.ok(Object.keys(answers.search).length > 0);
  for (const [query, result] of Object.entries(answers.search)) {
    const items = inventoryPickItems(result.items, result.tokenizer);
    assert.deepEqual(
      items.map((i) => i.label),
      result.items.map((m) => m.reference),
      query,
    );
    assert.ok(items.length > 0, `${query} finds something`);
  }
  assert.deepEqual(
    inventoryPickItems(answers.search.deploy.items).map((i) => i.icon),
    ['book', 'sparkle', 'robot'],
  );
});
