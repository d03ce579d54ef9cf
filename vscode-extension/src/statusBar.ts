// Status bar item with the token cost of the active document's references.

import * as vscode from 'vscode';
import type { CtxlsServer } from './client';
import { type DocumentCostItem, type DocumentCostResult } from './protocol';
import { costBreakdownItems, costStatusText } from './quickPick';
import { formatTokens } from './format';
import { Scheduled, quietRequest } from './scheduled';

export class CostStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly updates = new Scheduled((latest) => this.update(latest));
  private last: { uri: string; result: DocumentCostResult } | undefined;

  constructor(private readonly server: CtxlsServer) {
    this.item = vscode.window.createStatusBarItem('ctxls.cost', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'ctxls token cost';
    this.item.command = 'ctxls.showCostBreakdown';
    this.disposables.push(
      this.item,
      vscode.window.onDidChangeActiveTextEditor(() => this.schedule(0)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === vscode.window.activeTextEditor?.document) {
          this.schedule(700);
        }
      }),
      vscode.workspace.onDidSaveTextDocument(() => this.schedule(200)),
      // The server re-publishes diagnostics after it re-indexed (disk
      // changes, settings): the costs may have changed with them.
      vscode.languages.onDidChangeDiagnostics((e) => {
        const active = vscode.window.activeTextEditor?.document.uri.toString();
        if (active && e.uris.some((u) => u.toString() === active)) {
          this.schedule(300);
        }
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('ctxls')) {
          this.schedule(1000);
        }
      }),
      server.onDidStart(() => this.schedule(0)),
    );
  }

  /** Recomputes after `delayMs`. */
  schedule(delayMs: number): void {
    this.updates.schedule(delayMs);
  }

  private async update(latest: () => boolean): Promise<void> {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc || doc.languageId !== 'markdown' || doc.uri.scheme !== 'file' || !this.server.running) {
      this.item.hide();
      return;
    }
    const result = await quietRequest(this.server, 'ctxls/documentCost', { uri: doc.uri.toString() });
    if (!latest()) {
      return;
    }
    const text = costStatusText(result);
    if (!text || !result) {
      this.item.hide();
      this.last = undefined;
      return;
    }
    this.last = { uri: doc.uri.toString(), result };
    this.item.text = `$(symbol-numeric) ${text}`;
    this.item.tooltip = `Token cost of the references in ${vscode.workspace.asRelativePath(doc.uri)} — click for the breakdown`;
    this.item.show();
  }

  /** Shows the breakdown of a document (the active one by default). */
  async showBreakdown(arg?: vscode.Uri | string): Promise<void> {
    const uri =
      typeof arg === 'string' ? vscode.Uri.parse(arg) : arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    if (!uri) {
      void vscode.window.showInformationMessage('ctxls: open a markdown file to see the cost of its references.');
      return;
    }
    let result = this.last?.uri === uri.toString() ? this.last.result : undefined;
    if (!result) {
      result = await this.server.tryRequest('ctxls/documentCost', { uri: uri.toString() });
    }
    const items = costBreakdownItems(result).map((p) => ({
      label: `${p.icon ? `$(${p.icon}) ` : ''}${p.label}`,
      description: p.description,
      detail: p.detail,
      value: p.value,
    }));
    if (items.length === 0) {
      void vscode.window.showInformationMessage(`ctxls: ${vscode.workspace.asRelativePath(uri)} has no references.`);
      return;
    }
    const total = result?.total ?? items.reduce((s, i) => s + (i.value.tokens ?? 0), 0);
    const picked = await vscode.window.showQuickPick(items, {
      title: `Token cost of ${vscode.workspace.asRelativePath(uri)}: ${formatTokens(total)}`,
      placeHolder: 'References, most expensive first — pick one to go to it',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (picked) {
      await this.reveal(uri, picked.value);
    }
  }

  private async reveal(uri: vscode.Uri, item: DocumentCostItem): Promise<void> {
    if (typeof item.line === 'number') {
      const editor = await vscode.window.showTextDocument(uri);
      const pos = new vscode.Position(item.line, 0);
      editor.selection = new vscode.Selection(pos, pos);
      editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenter);
      return;
    }
    if (item.path) {
      await vscode.window.showTextDocument(vscode.Uri.file(item.path));
    }
  }

  dispose(): void {
    this.updates.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
