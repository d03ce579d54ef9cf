// Starts, stops and talks to the `ctxls serve` process.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  CancellationToken,
  DidChangeConfigurationNotification,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
  WorkDoneProgress,
  type WorkDoneProgressBegin,
  type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
} from 'vscode-languageclient/node';
import type { NotificationMap, NotificationMethod, RequestMethod, RequestParams, RequestResult } from './protocol';
import { resolveServer, serverSettings, type Inspected } from './settings';
import { DOCUMENT_SELECTOR, WATCH_GLOB } from './agentFiles';
import { serverAllowed, trustedServerSettings } from './trust';

/**
 * The `ctxls` object mirrored to the server from the current settings; in
 * Restricted Mode with the executor forced to preview, so that nothing runs.
 */
export function currentServerSettings(scope?: vscode.ConfigurationScope): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration('ctxls', scope);
  const settings = serverSettings((key) => config.inspect(key) as Inspected | undefined);
  return trustedServerSettings(settings, vscode.workspace.isTrusted);
}

export function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Makes a bundled binary executable when the archive lost its mode bits. */
export function ensureExecutable(p: string): void {
  if (process.platform === 'win32') {
    return;
  }
  try {
    fs.accessSync(p, fs.constants.X_OK);
  } catch {
    try {
      fs.chmodSync(p, 0o755);
    } catch {
      // Reported by the start failure that follows.
    }
  }
}

/** Handles a notification of the server, typed by its method. */
function onServerNotification<N extends NotificationMethod>(
  client: LanguageClient,
  method: N,
  handler: (params: NotificationMap[N]) => void,
): vscode.Disposable {
  return client.onNotification(method, handler);
}

/** Owns the language client; survives restarts. */
export class CtxlsServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly startedEmitter = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  private starting: Promise<void> | undefined;
  /** Why the last start failed; cleared by restart and by settings changes. */
  private startError: Error | undefined;

  private readonly libraryEmitter = new vscode.EventEmitter<void>();
  private readonly executionsEmitter = new vscode.EventEmitter<void>();
  private readonly agentFilesEmitter = new vscode.EventEmitter<void>();

  /** Fires after every successful start (initial and restarts). */
  readonly onDidStart = this.startedEmitter.event;
  /** Fires when the server says the library changed. */
  readonly onLibraryChanged = this.libraryEmitter.event;
  /** Fires when the server says the executions changed. */
  readonly onExecutionsChanged = this.executionsEmitter.event;
  /** Fires when the server says agent files changed, on disk or unsaved in the editor. */
  readonly onAgentFilesChanged = this.agentFilesEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('ctxls')) {
          return;
        }
        if (e.affectsConfiguration('ctxls.serverPath')) {
          void this.restart().catch(() => undefined);
          return;
        }
        void this.pushSettings();
      }),
      // Trusting the workspace lifts the preview-only executor.
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.pushSettings()),
    );
  }

  /** True when the client is running. */
  get running(): boolean {
    return this.client?.state === State.Running;
  }

  /** Starts the server when it is not running. */
  start(): Promise<void> {
    if (this.running) {
      return Promise.resolve();
    }
    if (this.startError) {
      // Reported once already; do not reopen the error on every request.
      return Promise.reject(this.startError);
    }
    if (!this.starting) {
      this.starting = this.doStart()
        .catch((err: unknown) => {
          this.startError = err instanceof Error ? err : new Error(String(err));
          throw this.startError;
        })
        .finally(() => {
          this.starting = undefined;
        });
    }
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const setting = vscode.workspace.getConfiguration('ctxls').get<string>('serverPath', '');
    const found = resolveServer({
      setting,
      extensionPath: this.context.extensionPath,
      platform: process.platform,
      arch: process.arch,
      envPath: process.env.PATH,
      workspaceFolder: folder?.uri.fsPath,
      home: os.homedir(),
      isFile,
    });
    if ('error' in found) {
      this.output.appendLine(`[ctxls] ${found.error}`);
      void vscode.window.showErrorMessage(found.error, 'Open Settings').then((choice) => {
        if (choice) {
          void vscode.commands.executeCommand('workbench.action.openSettings', 'ctxls.serverPath');
        }
      });
      throw new Error(found.error);
    }
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    if (!serverAllowed(found.command, folders, vscode.workspace.isTrusted)) {
      const message = `ctxls: the server ${found.command} lies in the workspace, which is not trusted; it is not started in Restricted Mode.`;
      this.output.appendLine(`[ctxls] ${message}`);
      void vscode.window.showErrorMessage(message, 'Manage Workspace Trust').then((choice) => {
        if (choice) {
          void vscode.commands.executeCommand('workbench.trust.manage');
        }
      });
      throw new Error(message);
    }
    if (found.source === 'bundled') {
      ensureExecutable(found.command);
    }
    this.output.appendLine(`[ctxls] starting ${found.command} serve (${found.source})`);
    const serverOptions: ServerOptions = {
      command: found.command,
      args: ['serve'],
      options: { cwd: folder?.uri.fsPath, env: { ...process.env } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [...DOCUMENT_SELECTOR],
      synchronize: {
        fileEvents: vscode.workspace.createFileSystemWatcher(WATCH_GLOB),
      },
      outputChannel: this.output,
      initializationOptions: { settings: { ctxls: currentServerSettings() } },
      middleware: {
        workspace: {
          // Answer `workspace/configuration` for `ctxls` with explicit values
          // only, the same object that didChangeConfiguration carries.
          configuration: (params, token, next) => {
            const ours = params.items.map((item) =>
              item.section === 'ctxls'
                ? currentServerSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined)
                : undefined,
            );
            if (ours.every((v) => v !== undefined)) {
              return ours;
            }
            return Promise.resolve(next(params, token)).then((theirs) => {
              if (!Array.isArray(theirs)) {
                return theirs;
              }
              return theirs.map((v, i) => ours[i] ?? v);
            });
          },
        },
      },
    };
    const client = new LanguageClient('ctxls', 'ctxls', serverOptions, clientOptions);
    onServerNotification(client, 'ctxls/libraryChanged', () => this.libraryEmitter.fire());
    onServerNotification(client, 'ctxls/executionsChanged', () => this.executionsEmitter.fire());
    onServerNotification(client, 'ctxls/agentFilesChanged', () => this.agentFilesEmitter.fire());
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      this.output.appendLine(`[ctxls] server failed to start: ${String(err)}`);
      this.client = undefined;
      await client.dispose().catch(() => undefined);
      throw err;
    }
    await this.pushSettings();
    this.startedEmitter.fire();
  }

  /** Sends the current settings with workspace/didChangeConfiguration. */
  async pushSettings(): Promise<void> {
    if (!this.client || !this.running) {
      return;
    }
    await this.client.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { ctxls: currentServerSettings() },
    });
  }

  /** Stops the server. */
  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client && client.state !== State.Stopped) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.output.appendLine(`[ctxls] stop: ${String(err)}`);
      }
    }
    await client?.dispose().catch(() => undefined);
  }

  /** Stops and starts the server, picking up a changed server path. */
  async restart(): Promise<void> {
    await this.starting?.catch(() => undefined);
    this.startError = undefined;
    await this.stop();
    await this.start();
  }

  /** Sends a request, starting the server first when needed. */
  async request<M extends RequestMethod>(
    method: M,
    params: RequestParams<M>,
    token?: CancellationToken,
  ): Promise<RequestResult<M>> {
    await this.start();
    const client = this.client;
    if (!client) {
      throw new Error('the ctxls server is not running');
    }
    // An explicit undefined token would count as a second parameter and
    // turn the params into an array.
    return token
      ? client.sendRequest<RequestResult<M>>(method, params, token)
      : client.sendRequest<RequestResult<M>>(method, params);
  }

  /** Sends a request and shows its failure to the user; undefined on failure. */
  async tryRequest<M extends RequestMethod>(
    method: M,
    params: RequestParams<M>,
    token?: CancellationToken,
  ): Promise<RequestResult<M> | undefined> {
    try {
      return await this.request(method, params, token);
    } catch (err) {
      if (token?.isCancellationRequested) {
        return undefined;
      }
      if (err === this.startError) {
        return undefined;
      }
      const message = err instanceof Error ? err.message : String(err);
      this.output.appendLine(`[ctxls] ${method}: ${message}`);
      void vscode.window.showErrorMessage(`ctxls: ${method} failed: ${message}`);
      return undefined;
    }
  }

  /** Subscribes to `$/progress` for a work-done token. */
  onProgress(
    token: string,
    handler: (value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd) => void,
  ): vscode.Disposable {
    if (!this.client) {
      return new vscode.Disposable(() => undefined);
    }
    return this.client.onProgress(WorkDoneProgress.type, token, handler);
  }

  dispose(): void {
    void this.stop();
    this.startedEmitter.dispose();
    this.libraryEmitter.dispose();
    this.executionsEmitter.dispose();
    this.agentFilesEmitter.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
