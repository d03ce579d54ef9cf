// Tree view of what a session of the configured agent loads, grouped as
// always loaded, listing and on demand, with the tokens of each file.

import * as vscode from 'vscode';
import type { SessionCost, SessionEntry } from './protocol';
import { sessionGroups, type SessionGroup } from './agentFiles';
import { formatTokens } from './format';

type SessionNode = { group: SessionGroup } | { entry: SessionEntry };

export class SessionTreeProvider implements vscode.TreeDataProvider<SessionNode> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private cost: SessionCost | undefined;

  /** Shows a new session cost. */
  update(cost: SessionCost | undefined): void {
    this.cost = cost;
    this.changed.fire();
  }

  getChildren(node?: SessionNode): SessionNode[] {
    if (!node) {
      return sessionGroups(this.cost).map((group) => ({ group }));
    }
    return 'group' in node ? node.group.entries.map((entry) => ({ entry })) : [];
  }

  getTreeItem(node: SessionNode): vscode.TreeItem {
    if ('group' in node) {
      const item = new vscode.TreeItem(node.group.label, vscode.TreeItemCollapsibleState.Expanded);
      item.description = `${formatTokens(node.group.tokens)} · ${node.group.entries.length} ${node.group.entries.length === 1 ? 'file' : 'files'}`;
      return item;
    }
    const e = node.entry;
    const item = new vscode.TreeItem(e.file, vscode.TreeItemCollapsibleState.None);
    item.description = formatTokens(e.tokens);
    item.tooltip = `${e.file}\n${formatTokens(e.tokens)}: ${e.reason}`;
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (folder) {
      item.resourceUri = vscode.Uri.joinPath(folder.uri, ...e.file.split('/'));
      item.command = { command: 'vscode.open', title: 'Open', arguments: [item.resourceUri] };
    }
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
