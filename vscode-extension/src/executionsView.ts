// The "Executions" tree view: executions → commands.

import * as vscode from 'vscode';
import type { CtxlsServer } from './client';
import {
  buildCommandNodes,
  buildExecutionNodes,
  commandsOf,
  type CommandNode,
  type ExecutionNode,
} from './executionsTree';
import type { Execution } from './protocol';

export type ExecutionsTreeNode = ExecutionNode | CommandNode;

export class ExecutionsTreeProvider implements vscode.TreeDataProvider<ExecutionsTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ExecutionsTreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private nodes: ExecutionNode[] | undefined;

  constructor(private readonly server: CtxlsServer) {}

  refresh(): void {
    this.nodes = undefined;
    this.changed.fire(undefined);
  }

  /** Executions as last listed (loads them when needed). */
  async list(): Promise<ExecutionNode[]> {
    if (!this.nodes) {
      const result = await this.server.tryRequest('ctxls/execution/list', {});
      this.nodes = buildExecutionNodes(result);
    }
    return this.nodes;
  }

  async getChildren(element?: ExecutionsTreeNode): Promise<ExecutionsTreeNode[]> {
    if (!element) {
      return this.list();
    }
    if (element.kind === 'execution') {
      let execution: Execution = element.execution;
      if (commandsOf(execution).length === 0) {
        // The list may carry summaries only; fetch the full record.
        const full = await this.server.tryRequest('ctxls/execution/get', { sessionId: element.sessionId });
        if (full && typeof full === 'object') {
          execution = { ...execution, ...full };
        }
      }
      return buildCommandNodes(execution);
    }
    return [];
  }

  getTreeItem(node: ExecutionsTreeNode): vscode.TreeItem {
    if (node.kind === 'execution') {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = node.key;
      item.description = node.description;
      item.tooltip = node.tooltip;
      item.iconPath = new vscode.ThemeIcon(
        node.icon,
        node.current ? new vscode.ThemeColor('charts.yellow') : undefined,
      );
      item.contextValue = node.contextValue;
      return item;
    }
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    item.id = node.key;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.iconPath = new vscode.ThemeIcon(node.icon);
    item.contextValue = 'ctxlsExecutionCommand';
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
