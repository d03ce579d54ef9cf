// The "Context Library" tree view: domains → topics from `ctxls/catalog`.

import * as vscode from 'vscode';
import type { CtxlsServer } from './client';
import { buildContextTree, treeSummary, type ContextNode, type DomainNode, type TopicNode } from './contextTree';
import { itemsOf, warningText } from './protocol';

/** Uri of a topic node's file: its `uri`, else an absolute `path` (the server gives paths relative to the workspace). */
export function topicUri(node: Pick<TopicNode, 'path' | 'uri'>): vscode.Uri | undefined {
  if (node.uri) {
    return vscode.Uri.parse(node.uri);
  }
  if (node.path && node.path.startsWith('/')) {
    return vscode.Uri.file(node.path);
  }
  return undefined;
}

export class ContextTreeProvider implements vscode.TreeDataProvider<ContextNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ContextNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private domains: DomainNode[] | undefined;
  private loading: Promise<DomainNode[]> | undefined;
  private view: vscode.TreeView<ContextNode> | undefined;

  constructor(private readonly server: CtxlsServer) {}

  /** Attaches the view to show totals in its description. */
  attach(view: vscode.TreeView<ContextNode>): void {
    this.view = view;
  }

  /** Reloads the catalog now. */
  refresh(): void {
    this.domains = undefined;
    this.loading = undefined;
    this.changed.fire(undefined);
  }


  private async load(): Promise<DomainNode[]> {
    if (this.domains) {
      return this.domains;
    }
    if (!this.loading) {
      this.loading = (async () => {
        const result = await this.server.tryRequest('ctxls/catalog', {});
        const domains = buildContextTree(itemsOf(result));
        const warnings = (result?.warnings ?? []).map(warningText);
        if (this.view) {
          this.view.description = treeSummary(domains);
          this.view.message = warnings.length > 0 ? `⚠ ${warnings.slice(0, 3).join(' · ')}` : undefined;
        }
        this.domains = domains;
        return domains;
      })();
    }
    return this.loading;
  }

  async getChildren(element?: ContextNode): Promise<ContextNode[]> {
    if (!element) {
      return this.load();
    }
    if (element.kind === 'domain') {
      return element.topics;
    }
    return [];
  }

  getParent(element: ContextNode): ContextNode | undefined {
    if (element.kind === 'topic' && this.domains) {
      return this.domains.find((d) => d.topics.includes(element));
    }
    return undefined;
  }

  getTreeItem(node: ContextNode): vscode.TreeItem {
    if (node.kind === 'domain') {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
      item.id = node.key;
      item.description = node.description;
      item.tooltip = new vscode.MarkdownString(node.tooltip);
      item.iconPath = new vscode.ThemeIcon('folder-library');
      item.contextValue = 'ctxlsDomain';
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
    item.contextValue = 'ctxlsTopic';
    const uri = topicUri(node);
    if (uri) {
      item.resourceUri = uri;
      item.command = { command: 'ctxls.openTopic', title: 'Open Topic', arguments: [node] };
    }
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
