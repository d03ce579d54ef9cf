// Checked by `npm run typecheck`, never run: each call marked as expecting
// an error must fail to compile, so a request typed looser than the
// generated RequestMap (a method name, a param or a result of the wrong
// type) fails the check.

import type { CtxlsServer } from '../../src/client';
import type { CatalogItem, InventoryEntry, InventoryMatch, SessionCost, TrustResult } from '../../src/protocol';
import { quietRequest } from '../../src/scheduled';

declare const server: CtxlsServer;

export async function requestTypes(): Promise<void> {
  // @ts-expect-error a method the server does not have
  await server.request('ctxls/nope', {});
  // @ts-expect-error a param of the wrong type
  await server.request('ctxls/documentCost', { uri: 1 });
  // @ts-expect-error a param the method does not take
  await server.tryRequest('ctxls/catalog', { domain: 'd', query: 'q' });
  // @ts-expect-error a required param left out
  await server.tryRequest('ctxls/search', {});
  // @ts-expect-error searching the inventory needs a query
  await server.request('ctxls/inventory/search', { kind: 'skill' });
  // @ts-expect-error the inventory's filters are strings
  await server.tryRequest('ctxls/inventory', { kind: 1 });
  // @ts-expect-error params to a method that takes none
  await quietRequest(server, 'ctxls/chain/list', { name: 'x' });
  // @ts-expect-error resuming names the execution
  await server.request('ctxls/chain/resume', { workDoneToken: 't' });

  const catalog = await server.request('ctxls/catalog', {});
  const items: CatalogItem[] = catalog.items;
  // @ts-expect-error the result is the method's
  const trust: TrustResult = catalog;
  // @ts-expect-error a result the server may send as null
  const cost: SessionCost = await server.request('ctxls/sessionCost', {});
  const inventory = await server.request('ctxls/inventory', {});
  const entries: InventoryEntry[] = inventory.entries;
  const tokenizer: string = inventory.tokenizer;
  const found = await server.request('ctxls/inventory/search', { query: 'deploy' });
  const matches: InventoryMatch[] = found.items;
  // @ts-expect-error an inventory lists entries, not items
  void inventory.items;
  void [items, trust, cost, entries, tokenizer, matches];
}
