// Chain commands (run, preview, resume, cancel) and execution actions.

import * as vscode from 'vscode';
import type { CtxlsServer } from './client';
import type { ExecutionsTreeProvider } from './executionsView';
import type { ReadonlyDocs } from './readonlyDocs';
import { renderChainPreviewHtml, summarizePreview } from './chainPreview';
import { buildChainFlow, deleteExecutionFlow, progressIncrement, progressText } from './flows';
import { formatChain, formatTokens, shortId } from './format';
import { renderConversation, renderSharedData } from './history';
import { executionState, isResumable, plannedCommands } from './executionsTree';
import {
  itemsOf,
  warningText,
  type ChainParams,
  type ChainPreviewResult,
  type ChainRunResult,
  type Execution,
  type HistoryListParams,
  type HistoryMessage,
  type TrustGrantParams,
} from './protocol';
import type { ExecutorInfo } from './protocol.gen';
import { chainPickItems, executionPickItems, type PickItem } from './quickPick';
import { RESTRICTED_RUN_MESSAGE, confirmationText, executorDecision } from './trust';
import { RunDrafts } from './runDrafts';
import { quietRequest } from './scheduled';

type Picked<T> = vscode.QuickPickItem & { value: T };

/** Converts pure pick items to vscode quick-pick items. */
export function toQuickPickItems<T>(items: ReadonlyArray<PickItem<T>>): Array<Picked<T>> {
  return items.map((i) => ({
    label: `${i.icon ? `$(${i.icon}) ` : ''}${i.label}`,
    description: i.description,
    detail: i.detail,
    alwaysShow: i.alwaysShow,
    kind: i.separator ? vscode.QuickPickItemKind.Separator : undefined,
    value: i.value,
  }));
}

interface ActiveRun {
  commands: string[];
  sessionId?: string;
  cancel: vscode.CancellationTokenSource;
}

export class ChainCommands implements vscode.Disposable {
  private readonly active = new Set<ActiveRun>();
  private previewPanel: vscode.WebviewPanel | undefined;
  /** The input of a run whose executor confirmation was declined. */
  private readonly drafts = new RunDrafts();

  constructor(
    private readonly server: CtxlsServer,
    private readonly executions: ExecutionsTreeProvider,
    private readonly docs: ReadonlyDocs,
  ) {}

  /**
   * What has to hold before a chain runs: the workspace is trusted, and an
   * `exec` executor that the workspace's `.ctxls.yaml` chose was shown and
   * agreed to, which the server remembers per workspace and command line
   * (`ctxls/trust/grant`) and checks before it runs anything. Returns the
   * request fields that pin the agreed command line (the server refuses to
   * run another), or undefined to run nothing.
   */
  private async allowRun(): Promise<Pick<ChainParams, 'executorCommand'> | undefined> {
    if (!vscode.workspace.isTrusted) {
      const choice = await vscode.window.showWarningMessage(RESTRICTED_RUN_MESSAGE, 'Manage Workspace Trust');
      if (choice) {
        void vscode.commands.executeCommand('workbench.trust.manage');
      }
      return undefined;
    }
    const list = await this.server.tryRequest('ctxls/chain/list', {});
    if (!list) {
      return undefined;
    }
    const executor = list.executor;
    if (!executor) {
      return {};
    }
    const decision = executorDecision(executor);
    if (decision.kind === 'confirm') {
      const choice = await vscode.window.showWarningMessage(
        'ctxls: run a program that this workspace chose?',
        { modal: true, detail: confirmationText(decision.commandLine) },
        'Run',
      );
      if (choice !== 'Run') {
        return undefined;
      }
      // The server refuses a grant of any other command line than the one
      // in effect, so an edit of .ctxls.yaml meanwhile is not agreed to.
      const params: TrustGrantParams = { command: decision.command };
      const granted = await this.server.tryRequest('ctxls/trust/grant', params);
      if (!granted) {
        return undefined;
      }
    }
    return { executorCommand: executor.kind === 'exec' ? executor.command : [] };
  }

  /** Registers every chain and execution command. */
  register(): vscode.Disposable[] {
    const sessionOf = (arg: unknown): string | undefined => {
      if (typeof arg === 'string') {
        return arg;
      }
      if (arg && typeof arg === 'object' && typeof (arg as { sessionId?: unknown }).sessionId === 'string') {
        return (arg as { sessionId: string }).sessionId;
      }
      return undefined;
    };
    return [
      vscode.commands.registerCommand('ctxls.runChain', () => this.runChain()),
      vscode.commands.registerCommand('ctxls.previewChain', () => this.previewChain()),
      vscode.commands.registerCommand('ctxls.resumeChain', (arg?: unknown) => this.resumeChain(sessionOf(arg))),
      vscode.commands.registerCommand('ctxls.cancelChain', (arg?: unknown) => this.cancelChain(sessionOf(arg))),
      vscode.commands.registerCommand('ctxls.showHistory', (arg?: unknown) => this.showHistory(sessionOf(arg))),
      vscode.commands.registerCommand('ctxls.execution.setCurrent', (arg?: unknown) => this.setCurrent(sessionOf(arg))),
      vscode.commands.registerCommand('ctxls.execution.resume', (arg?: unknown) => this.resumeChain(sessionOf(arg))),
      vscode.commands.registerCommand('ctxls.execution.showSharedData', (arg?: unknown) =>
        this.showSharedData(sessionOf(arg)),
      ),
      vscode.commands.registerCommand('ctxls.execution.showHistory', (arg?: unknown) => this.showHistory(sessionOf(arg))),
      vscode.commands.registerCommand('ctxls.execution.delete', (arg?: unknown) => this.deleteExecution(sessionOf(arg))),
    ];
  }

  /** Asks for a chain: a named one or one built command by command. */
  private async pickChain(title: string): Promise<string[] | undefined> {
    const [named, commands] = await Promise.all([
      quietRequest(this.server, 'ctxls/chain/list', {}),
      this.server.tryRequest('ctxls/commands', {}),
    ]);
    const chains = itemsOf(named);
    const commandList = itemsOf(commands);
    if (chains.length === 0 && commandList.length === 0) {
      void vscode.window.showWarningMessage(
        'ctxls: no commands found. Commands are markdown files in a folder named `commands` (or the command roots of .ctxls.yaml).',
      );
      return undefined;
    }
    let choice: Picked<ReturnType<typeof chainPickItems>[number]['value']> | undefined;
    if (chains.length > 0) {
      choice = await vscode.window.showQuickPick(toQuickPickItems(chainPickItems(chains)), {
        title,
        placeHolder: 'Pick a named chain from .ctxls.yaml, or build one',
        matchOnDescription: true,
        ignoreFocusOut: true,
      });
      if (!choice) {
        return undefined;
      }
    }
    if (choice && choice.value.kind === 'named') {
      return choice.value.chain.commands;
    }
    return buildChainFlow(commandList, async (items, step, picked) => {
      const sel = await vscode.window.showQuickPick(toQuickPickItems(items), {
        title: picked.length > 0 ? `${title} ${formatChain(picked)} → …` : title,
        placeHolder: `Step ${step}: pick a command${picked.length > 0 ? ', or Done' : ''}`,
        matchOnDescription: true,
        ignoreFocusOut: true,
      });
      return sel ? items.find((i) => i.value === sel.value) : undefined;
    });
  }

  private async askInput(commands: string[]): Promise<string | undefined> {
    return vscode.window.showInputBox({
      title: `Input for ${formatChain(commands.map((c) => '/' + c))}`,
      prompt: 'What the chain should work on (passed to the first step)',
      placeHolder: 'e.g. add pagination to the /users endpoint',
      ignoreFocusOut: true,
    });
  }

  /** "Run Chain…" */
  async runChain(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      await this.allowRun();
      return;
    }
    const commands = await this.pickChain('Run Chain');
    if (!commands) {
      return;
    }
    // The input typed for this chain before a declined confirmation is
    // used again rather than asked for again.
    const input = this.drafts.inputFor(commands) ?? (await this.askInput(commands));
    if (input === undefined) {
      return;
    }
    const allowed = await this.allowRun();
    if (!allowed) {
      this.drafts.keep(commands, input);
      return;
    }
    this.drafts.clear();
    await this.runWithProgress(commands, (workDoneToken, token) =>
      this.server.request('ctxls/chain/run', { commands, input, workDoneToken, ...allowed }, token),
    );
  }

  /** "Resume Chain" */
  async resumeChain(sessionId?: string): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      await this.allowRun();
      return;
    }
    let commands: string[] = [];
    if (!sessionId) {
      const picked = await this.pickExecution('Resume Chain', (e) => isResumable(e), 'No unfinished execution to resume.');
      if (!picked) {
        return;
      }
      sessionId = picked.sessionId;
      commands = plannedCommands(picked);
    }
    const id = sessionId;
    const allowed = await this.allowRun();
    if (!allowed) {
      return;
    }
    await this.runWithProgress(
      commands.length > 0 ? commands : [`session ${shortId(id)}`],
      (workDoneToken, token) =>
        this.server.request('ctxls/chain/resume', { sessionId: id, workDoneToken, ...allowed }, token),
      id,
    );
  }

  /** Runs a chain request with a cancellable progress notification fed by `$/progress`. */
  private async runWithProgress(
    commands: string[],
    send: (workDoneToken: string, token: vscode.CancellationToken) => Promise<ChainRunResult>,
    sessionId?: string,
  ): Promise<void> {
    const workDoneToken = `ctxls-chain-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    const run: ActiveRun = { commands, sessionId, cancel: new vscode.CancellationTokenSource() };
    this.active.add(run);
    let result: ChainRunResult | undefined;
    let failure: unknown;
    try {
      await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `ctxls: ${formatChain(commands.map((c) => (c.startsWith('session ') ? c : '/' + c)))}`,
          cancellable: true,
        },
        async (progress, cancelled) => {
          let percentage = 0;
          const sub = this.server.onProgress(workDoneToken, (value) => {
            if (value.kind === 'end') {
              progress.report({ message: value.message, increment: 100 - percentage });
              percentage = 100;
              return;
            }
            // A new step was recorded: show it in the Executions view.
            this.executions.refresh();
            const increment = progressIncrement(percentage, value.percentage);
            percentage += increment;
            const text = progressText({ title: value.kind === 'begin' ? value.title : undefined, message: value.message });
            progress.report({ message: text || undefined, increment });
          });
          const onCancel = cancelled.onCancellationRequested(() => void this.cancelRun(run));
          this.executions.refresh();
          try {
            result = await send(workDoneToken, run.cancel.token);
          } catch (err) {
            failure = err;
          } finally {
            sub.dispose();
            onCancel.dispose();
          }
        },
      );
    } finally {
      this.active.delete(run);
      run.cancel.dispose();
      this.executions.refresh();
    }
    if (run.cancel.token.isCancellationRequested) {
      void vscode.window.showInformationMessage(`ctxls: chain ${formatChain(commands)} cancelled.`);
      return;
    }
    if (failure !== undefined) {
      const message = failure instanceof Error ? failure.message : String(failure);
      this.server.output.appendLine(`[ctxls] chain failed: ${message}`);
      void vscode.window.showErrorMessage(`ctxls: chain ${formatChain(commands)} failed: ${message}`);
      return;
    }
    const state = result?.state || 'finished';
    const sum = summarizePreview(result);
    const warnings = (result?.warnings ?? []).map(warningText);
    const text =
      `ctxls: chain ${formatChain(commands)} ${state}` +
      (sum.steps.length > 0 ? ` — ${sum.steps.length} steps, ${formatTokens(sum.totalTokens)}` : '') +
      (warnings.length > 0 ? ` (${warnings.length} warnings)` : '');
    const actions = result?.sessionId ? ['Show History', 'Show Shared Data'] : [];
    const show = /fail/i.test(state) ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    const action = await show(text, ...actions);
    if (action === 'Show History' && result?.sessionId) {
      await this.showHistory(result.sessionId);
    } else if (action === 'Show Shared Data' && result?.sessionId) {
      await this.showSharedData(result.sessionId);
    }
  }

  /** Cancels one in-flight run: `$/cancelRequest` plus `ctxls/chain/cancel`. */
  private async cancelRun(run: ActiveRun): Promise<void> {
    let sessionId = run.sessionId;
    if (!sessionId) {
      // The running chain is the current execution while it runs.
      const current = await this.server.request('ctxls/execution/get', {}).catch(() => undefined);
      if (current?.sessionId && /run/i.test(executionState(current))) {
        sessionId = current.sessionId;
      }
    }
    if (sessionId) {
      await this.server.request('ctxls/chain/cancel', { sessionId }).catch((err) => {
        this.server.output.appendLine(`[ctxls] ctxls/chain/cancel: ${String(err)}`);
      });
    }
    run.cancel.cancel();
  }

  /** "Cancel Chain" */
  async cancelChain(sessionId?: string): Promise<void> {
    if (!sessionId && this.active.size > 0) {
      await Promise.all([...this.active].map((r) => this.cancelRun(r)));
      return;
    }
    if (!sessionId) {
      const picked = await this.pickExecution(
        'Cancel Chain',
        (e) => /run/i.test(executionState(e)),
        'No chain is running.',
      );
      if (!picked) {
        return;
      }
      sessionId = picked.sessionId;
    }
    const res = await this.server.tryRequest('ctxls/chain/cancel', { sessionId });
    if (res !== undefined) {
      void vscode.window.showInformationMessage(`ctxls: cancel requested for ${shortId(sessionId)}.`);
    }
    this.executions.refresh();
  }

  /** "Preview Chain…" */
  async previewChain(): Promise<void> {
    const commands = await this.pickChain('Preview Chain');
    if (!commands) {
      return;
    }
    const input = await this.askInput(commands);
    if (input === undefined) {
      return;
    }
    const [result, list] = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `ctxls: previewing ${formatChain(commands)}`, cancellable: true },
      (_progress, token) =>
        Promise.all([
          this.server.tryRequest('ctxls/chain/preview', { commands, input }, token),
          // The executor in effect: the panel shows the command line each
          // step would run.
          this.server.tryRequest('ctxls/chain/list', {}, token),
        ]),
    );
    if (!result) {
      return;
    }
    this.showPreview(result, commands, input, list?.executor);
  }

  /** Shows a preview result in the (reused) preview panel. */
  showPreview(result: ChainPreviewResult, commands: string[], input: string, executor?: ExecutorInfo): void {
    const title = `Chain Preview: ${formatChain(commands)}`;
    if (!this.previewPanel) {
      this.previewPanel = vscode.window.createWebviewPanel('ctxls.chainPreview', title, vscode.ViewColumn.Active, {
        enableScripts: false,
        enableFindWidget: true,
        retainContextWhenHidden: true,
      });
      this.previewPanel.onDidDispose(() => {
        this.previewPanel = undefined;
      });
    }
    this.previewPanel.title = title;
    this.previewPanel.webview.html = renderChainPreviewHtml(result, commands, input, this.previewPanel.webview.cspSource, executor);
    this.previewPanel.reveal();
  }

  private async pickExecution(
    title: string,
    filter: (e: Execution) => boolean,
    none: string,
  ): Promise<Execution | undefined> {
    const list = await this.server.tryRequest('ctxls/execution/list', {});
    if (!list) {
      return undefined;
    }
    const candidates = itemsOf(list).filter(filter);
    if (candidates.length === 0) {
      void vscode.window.showInformationMessage(`ctxls: ${none}`);
      return undefined;
    }
    const current = list.current || undefined;
    const picked = await vscode.window.showQuickPick(toQuickPickItems(executionPickItems(candidates, current)), {
      title,
      placeHolder: 'Pick an execution',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    return picked?.value;
  }

  /** Asks for any execution; undefined when there is none or none is picked. */
  private async pickAnyExecution(title: string): Promise<string | undefined> {
    const picked = await this.pickExecution(title, () => true, 'No executions recorded yet.');
    return picked?.sessionId;
  }

  async setCurrent(sessionId?: string): Promise<void> {
    sessionId ||= await this.pickAnyExecution('Set Current Execution');
    if (!sessionId) {
      return;
    }
    const res = await this.server.tryRequest('ctxls/execution/setCurrent', { sessionId });
    if (res !== undefined) {
      this.executions.refresh();
    }
  }

  async showSharedData(sessionId?: string): Promise<void> {
    sessionId ||= await this.pickAnyExecution('Show Shared Data');
    if (!sessionId) {
      return;
    }
    const e = await this.server.tryRequest('ctxls/execution/get', { sessionId });
    if (!e) {
      return;
    }
    await this.docs.show(`shared-data-${shortId(sessionId)}.json`, renderSharedData(e));
  }

  async showHistory(sessionId?: string): Promise<void> {
    sessionId ||= await this.pickAnyExecution('Show Conversation History');
    if (!sessionId) {
      return;
    }
    // The execution names its conversation; older servers use the session id.
    const e = await this.server.request('ctxls/execution/get', { sessionId }).catch(() => undefined);
    const conversationId = e?.conversationId || sessionId;
    // The server pages from the newest messages backwards.
    const messages: HistoryMessage[] = [];
    let tokenizer: string | undefined;
    let before: number | undefined;
    for (let page = 0; page < 100; page++) {
      const params: HistoryListParams = { conversationId, ...(before !== undefined ? { before } : {}) };
      const res = await this.server.tryRequest('ctxls/history/list', params);
      if (!res) {
        return;
      }
      messages.unshift(...itemsOf(res));
      tokenizer = tokenizer ?? res.tokenizer;
      if (!res.more || res.items.length === 0) {
        break;
      }
      before = res.items[0].id;
    }
    await this.docs.show(`conversation-${shortId(sessionId)}.md`, renderConversation(conversationId, messages, tokenizer));
  }

  async deleteExecution(sessionId?: string): Promise<void> {
    sessionId ||= await this.pickAnyExecution('Delete Execution');
    if (!sessionId) {
      return;
    }
    const id = sessionId;
    let failed = false;
    const outcome = await deleteExecutionFlow(
      id,
      async (params) => {
        const res = await this.server.tryRequest('ctxls/execution/delete', params);
        if (res === undefined) {
          failed = true;
        }
        return res;
      },
      async (message) => {
        const answer = await vscode.window.showWarningMessage(
          message,
          { modal: true, detail: `Execution ${id}. Its commands, shared data and history are removed.` },
          'Delete',
        );
        return answer === 'Delete';
      },
    );
    if (outcome.outcome === 'failed' && !failed) {
      void vscode.window.showErrorMessage(`ctxls: could not delete ${shortId(id)}: ${outcome.message ?? ''}`);
    }
    if (outcome.outcome === 'deleted') {
      void vscode.window.showInformationMessage(`ctxls: execution ${shortId(id)} deleted.`);
    }
    this.executions.refresh();
  }

  dispose(): void {
    for (const r of this.active) {
      r.cancel.cancel();
    }
    this.previewPanel?.dispose();
  }
}
