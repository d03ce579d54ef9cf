// The "Context Library" tree view: from `ctxls/inventory`, the topics by
// domain, then the skills, commands, subagents and rules.

import * as vscode from 'vscode';
import type { CtxlsServer } from './client';
import { buildContextTree, type ContextNode, type EntryNode, type GroupNode } from './contextTree';
import { Scheduled } from './scheduled';

/**
 * Uri of an entry's file. The server gives paths relative to the
 * workspace, with forward slashes; an absolute path is taken as it is.
 */
export function entryUri(node: Pick<EntryNode, 'path'>): vscode.Uri | undefined {
  if (!node.path) {
    return undefined;
  }
  if (node.path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(node.path)) {
    return vscode.Uri.file(node.path);
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? vscode.Uri.joinPath(folder.uri, ...node.path.split('/')) : undefined;
}

export class ContextTreeProvider implements vscode.TreeDataProvider<ContextNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ContextNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private groups: GroupNode[] | undefined;
  private loading: Promise<GroupNode[]> | undefined;
  /** Counts refreshes, so that a load a refresh overtook keeps nothing. */
  private generation = 0;
  private view: vscode.TreeView<ContextNode> | undefined;
  /** Coalesces the refreshes of a burst of changes (typing in a skill). */
  private readonly soon = new Scheduled(async () => this.refresh());

  constructor(private readonly server: CtxlsServer) {}

  /** Attaches the view to show totals in its description. */
  attach(view: vscode.TreeView<ContextNode>): void {
    this.view = view;
  }

  /** Reloads the inventory now. */
  refresh(): void {
    this.generation++;
    this.groups = undefined;
    this.loading = undefined;
    this.changed.fire(undefined);
  }

  /** Reloads the inventory once the changes reported within delayMs are in. */
  refreshSoon(delayMs = 200): void {
    this.soon.schedule(delayMs);
  }

  private load(): Promise<GroupNode[]> {
    if (this.groups) {
      return Promise.resolve(this.groups);
    }
    if (!this.loading) {
      const generation = this.generation;
      this.loading = (async () => {
        const result = await this.server.tryRequest('ctxls/inventory', {});
        const tree = buildContextTree(result);
        if (generation !== this.generation) {
          return tree.groups;
        }
        if (this.view) {
          this.view.description = tree.summary;
          this.view.message = undefined;
        }
        this.groups = tree.groups;
        return tree.groups;
      })();
    }
    return this.loading;
  }

  async getChildren(element?: ContextNode): Promise<ContextNode[]> {
    if (!element) {
      return this.load();
    }
    if (element.kind === 'group') {
      return element.children;
    }
    return [];
  }

  getParent(element: ContextNode): ContextNode | undefined {
    if (element.kind === 'entry' && this.groups) {
      return this.groups.find((g) => g.children.includes(element));
    }
    return undefined;
  }

  getTreeItem(node: ContextNode): vscode.TreeItem {
    if (node.kind === 'group') {
      // Domains open as before; the groups of the other kinds start closed
      // so that the topics stay in sight.
      const state =
        node.entryKind === 'topic' ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
      const item = new vscode.TreeItem(node.label, state);
      item.id = node.key;
      item.description = node.description;
      item.tooltip = new vscode.MarkdownString(node.tooltip);
      item.iconPath = new vscode.ThemeIcon(node.icon);
      item.contextValue = node.entryKind === 'topic' ? 'ctxlsDomain' : 'ctxlsKind';
      return item;
    }
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    item.id = node.key;
    item.description = node.description;
    item.tooltip = new vscode.MarkdownString(node.tooltip);
    item.iconPath = new vscode.ThemeIcon(
      node.icon,
      node.alwaysLoad ? new vscode.ThemeColor('charts.orange') : undefined,
    );
    item.contextValue = node.entryKind === 'topic' ? 'ctxlsTopic' : 'ctxlsEntry';
    const uri = entryUri(node);
    if (uri) {
      item.resourceUri = uri;
      item.command = { command: 'ctxls.openTopic', title: 'Open', arguments: [node] };
    }
    return item;
  }

  dispose(): void {
    this.soon.dispose();
    this.changed.dispose();
  }
}
