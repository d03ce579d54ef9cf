// Read-only virtual documents for generated views (conversation history,
// shared data, cost breakdowns), so closing them never asks to save.

import * as vscode from 'vscode';

export const SCHEME = 'ctxls-view';

export class ReadonlyDocs implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.path) ?? '';
  }

  /**
   * Shows `content` as a read-only document named `name` (its extension
   * picks the language: `.md`, `.json`).
   */
  async show(name: string, content: string, options?: { preview?: boolean }): Promise<vscode.TextEditor> {
    const safe = name.replace(/[\\/:*?"<>|#%]+/g, '-');
    const uri = vscode.Uri.from({ scheme: SCHEME, path: '/' + safe });
    this.contents.set(uri.path, content);
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(doc, { preview: options?.preview ?? false });
  }

  dispose(): void {
    this.changed.dispose();
    this.contents.clear();
  }
}
