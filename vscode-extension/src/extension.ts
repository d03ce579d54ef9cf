// Entry point of the ctxls extension.

import * as vscode from 'vscode';
import { CtxlsServer } from './client';
import { ChainCommands } from './chains';
import { ContextTreeProvider, entryUri } from './contextView';
import type { ContextNode, EntryNode } from './contextTree';
import { ExecutionsTreeProvider } from './executionsView';
import { itemsOf, warningText, type InventoryMatch } from './protocol';
import { inventoryPickItems } from './quickPick';
import { ReadonlyDocs, SCHEME } from './readonlyDocs';
import { CostStatusBar } from './statusBar';
import { SessionStatusBar } from './sessionStatus';
import { SessionTreeProvider } from './sessionTree';
import { registerMcpServers } from './mcpProvider';

let server: CtxlsServer | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('ctxls', { log: true });
  server = new CtxlsServer(context, output);
  const srv = server;

  const docs = new ReadonlyDocs();
  const contextTree = new ContextTreeProvider(srv);
  const contextView = vscode.window.createTreeView<ContextNode>('ctxls.contextBrowser', {
    treeDataProvider: contextTree,
    showCollapseAll: true,
  });
  contextTree.attach(contextView);
  const executions = new ExecutionsTreeProvider(srv);
  const executionsView = vscode.window.createTreeView('ctxls.executions', {
    treeDataProvider: executions,
    showCollapseAll: true,
  });
  const status = new CostStatusBar(srv);
  const sessionTree = new SessionTreeProvider();
  const sessionView = vscode.window.createTreeView('ctxls.sessionCost', { treeDataProvider: sessionTree });
  const session = new SessionStatusBar(srv, (cost) => {
    sessionTree.update(cost);
    sessionView.message = cost ? `A ${cost.agent} session` : undefined;
  });
  const chains = new ChainCommands(srv, executions, docs);
  const mcp = registerMcpServers(context, output);
  if (mcp) {
    context.subscriptions.push(mcp);
  }

  context.subscriptions.push(
    output,
    srv,
    docs,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs),
    contextTree,
    contextView,
    executions,
    executionsView,
    status,
    sessionTree,
    sessionView,
    session,
    chains,
    ...chains.register(),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      // The server was not started from inside the untrusted workspace.
      if (!srv.running) {
        void srv.restart().catch(() => undefined);
      }
    }),
    srv.onDidStart(() => {
      contextTree.refresh();
      executions.refresh();
    }),
    // The server says when the views are stale: no timers, no guesses.
    srv.onLibraryChanged(() => contextTree.refresh()),
    // The tree lists skills, commands, subagents and rules too; they
    // change as the user types, unsaved.
    srv.onAgentFilesChanged(() => contextTree.refreshSoon()),
    srv.onExecutionsChanged(() => executions.refresh()),
    vscode.commands.registerCommand('ctxls.restartServer', async () => {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'ctxls: restarting server' },
        () => srv.restart(),
      );
    }),
    vscode.commands.registerCommand('ctxls.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('ctxls.showCostBreakdown', (arg?: vscode.Uri | string) => status.showBreakdown(arg)),
    vscode.commands.registerCommand('ctxls.showSessionCost', () => session.showBreakdown()),
    vscode.commands.registerCommand('ctxls.refreshSessionCost', () => session.schedule(0)),
    vscode.commands.registerCommand('ctxls.pickSessionAgent', () => session.pickAgent()),
    vscode.commands.registerCommand('ctxls.refreshContext', () => contextTree.refresh()),
    vscode.commands.registerCommand('ctxls.refreshExecutions', () => executions.refresh()),
    vscode.commands.registerCommand('ctxls.openTopic', async (node?: EntryNode) => {
      const uri = node ? entryUri(node) : undefined;
      if (uri) {
        await vscode.window.showTextDocument(uri, { preview: true });
      }
    }),
    vscode.commands.registerCommand('ctxls.copyReference', async (node?: ContextNode) => {
      const selected = node ?? contextView.selection[0];
      if (!selected || selected.kind !== 'entry') {
        return;
      }
      await vscode.env.clipboard.writeText(selected.reference);
      vscode.window.setStatusBarMessage(`Copied ${selected.reference}`, 3000);
    }),
    vscode.commands.registerCommand('ctxls.searchContext', () => searchContext(srv)),
  );

  srv.start().catch(() => {
    // Already reported to the user and the output channel.
  });
}

/**
 * "Search Context": a quick pick fed by `ctxls/inventory/search` as the
 * user types, over topics, skills, commands, subagents and rules.
 */
async function searchContext(srv: CtxlsServer): Promise<void> {
  const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { value?: InventoryMatch }>();
  qp.title = 'Search Context';
  qp.placeholder = 'Search topics, skills, commands, subagents and rules';
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  let timer: NodeJS.Timeout | undefined;
  let pending: vscode.CancellationTokenSource | undefined;
  const run = (query: string) => {
    pending?.cancel();
    if (query.trim() === '') {
      qp.items = [];
      qp.busy = false;
      return;
    }
    const cts = new vscode.CancellationTokenSource();
    pending = cts;
    qp.busy = true;
    srv
      .request('ctxls/inventory/search', { query }, cts.token)
      .then((res) => {
        if (cts.token.isCancellationRequested) {
          return;
        }
        const items = inventoryPickItems(itemsOf(res), res.tokenizer);
        qp.items =
          items.length > 0
            ? items.map((i) => ({
                label: `$(${i.icon ?? 'book'}) ${i.label}`,
                description: i.description,
                detail: i.detail,
                alwaysShow: true,
                value: i.value,
              }))
            : [{ label: `Nothing matches “${query}”`, alwaysShow: true }];
        // "showing the best 50 of 73 matches": the list is not all there is.
        for (const w of res.warnings ?? []) {
          qp.items = [...qp.items, { label: `$(info) ${warningText(w)}`, alwaysShow: true }];
        }
      })
      .catch((err) => {
        if (!cts.token.isCancellationRequested) {
          qp.items = [{ label: `Search failed: ${err instanceof Error ? err.message : String(err)}`, alwaysShow: true }];
        }
      })
      .finally(() => {
        if (pending === cts) {
          qp.busy = false;
        }
      });
  };
  qp.onDidChangeValue((value) => {
    if (timer) {
      clearTimeout(timer);
    }
    timer = setTimeout(() => run(value), 150);
  });
  const chosen = await new Promise<InventoryMatch | undefined>((resolve) => {
    qp.onDidAccept(() => {
      resolve(qp.selectedItems[0]?.value);
      qp.hide();
    });
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  if (timer) {
    clearTimeout(timer);
  }
  pending?.cancel();
  qp.dispose();
  if (!chosen) {
    return;
  }
  const uri = entryUri(chosen);
  if (uri) {
    await vscode.window.showTextDocument(uri);
  } else {
    void vscode.window.showInformationMessage(`ctxls: ${chosen.reference} has no file path.`);
  }
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
