// Status bar item with what a session of the configured agent
// (ctxls.sessionAgent) started in the workspace loads, from
// ctxls/sessionCost; each new answer goes to the session tree too.

import * as vscode from 'vscode';
import type { CtxlsServer } from './client';
import type { SessionCost, SessionCostParams } from './protocol';
import { Scheduled, quietRequest } from './scheduled';
import { affectsSession, sessionAgent, sessionAgentPickItems, sessionPickItems, sessionStatusText, sessionTooltip } from './agentFiles';

export class SessionStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly updates = new Scheduled((latest) => this.update(latest));
  private last: SessionCost | undefined;

  constructor(
    private readonly server: CtxlsServer,
    private readonly onCost: (cost: SessionCost | undefined) => void = () => {},
  ) {
    this.item = vscode.window.createStatusBarItem('ctxls.session', vscode.StatusBarAlignment.Right, 99);
    this.item.name = 'ctxls session cost';
    this.item.command = 'ctxls.showSessionCost';
    const soon = () => this.schedule(500);
    this.disposables.push(
      this.item,
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (affectsSession(doc.fileName)) {
          soon();
        }
      }),
      vscode.workspace.onDidCreateFiles(soon),
      vscode.workspace.onDidDeleteFiles(soon),
      vscode.workspace.onDidRenameFiles(soon),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('ctxls.sessionAgent')) {
          this.schedule(0);
        } else if (e.affectsConfiguration('ctxls')) {
          this.schedule(1500);
        }
      }),
      server.onDidStart(() => this.schedule(0)),
      // Follows the server's snapshot: a skill created on disk, an agent
      // file edited and not saved.
      server.onAgentFilesChanged(() => this.schedule(200)),
    );
  }

  /** Recomputes after `delayMs`. */
  schedule(delayMs: number): void {
    this.updates.schedule(delayMs);
  }

  private async update(latest: () => boolean): Promise<void> {
    if (!this.server.running) {
      this.item.hide();
      this.onCost(undefined);
      return;
    }
    const cost = (await quietRequest(this.server, 'ctxls/sessionCost', this.params())) ?? undefined;
    if (!latest()) {
      return;
    }
    const text = sessionStatusText(cost);
    this.last = cost;
    this.onCost(cost);
    if (!text || !cost) {
      this.item.hide();
      return;
    }
    this.item.text = text;
    this.item.tooltip = sessionTooltip(cost);
    this.item.show();
  }

  /** Shows what the session loads; picking a row opens its file. */
  async showBreakdown(): Promise<void> {
    const cost = this.last ?? (await this.server.tryRequest('ctxls/sessionCost', this.params())) ?? undefined;
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!cost || !folder) {
      void vscode.window.showInformationMessage('ctxls: no session cost yet; is the server running?');
      return;
    }
    const items = sessionPickItems(cost).map((r) =>
      r.separator
        ? { label: r.label, kind: vscode.QuickPickItemKind.Separator, file: undefined }
        : { label: r.label, description: r.description, detail: r.detail, file: r.file },
    );
    const picked = await vscode.window.showQuickPick(items, {
      title:
        (cost.agents ?? []).length > 0
          ? 'At the start of a session of each agent the project configures'
          : sessionStatusText(cost)?.replace(/\$\([\w-]+\) ?/g, '').trim() + ` at the start of a ${cost.agent} session`,
      placeHolder: 'Files a session loads, most expensive first — pick one to open it',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (picked?.file) {
      await vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, ...picked.file.split('/')));
    }
  }

  /**
   * Asks which agent's session to count, or all side by side, and keeps
   * the answer in the workspace's ctxls.sessionAgent setting, whose change
   * recomputes the cost.
   */
  async pickAgent(): Promise<void> {
    const config = vscode.workspace.getConfiguration('ctxls');
    const picked = await vscode.window.showQuickPick(sessionAgentPickItems(sessionAgent(config.get('sessionAgent'))), {
      title: 'ctxls: the agent whose session is counted',
      placeHolder: 'An agent, or all for every agent the project configures side by side',
    });
    if (picked) {
      await config.update('sessionAgent', picked.label, vscode.ConfigurationTarget.Workspace);
    }
  }

  /** The request's parameters: the agent of the ctxls.sessionAgent setting. */
  private params(): SessionCostParams {
    return { agent: sessionAgent(vscode.workspace.getConfiguration('ctxls').get('sessionAgent')) };
  }

  dispose(): void {
    this.updates.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
