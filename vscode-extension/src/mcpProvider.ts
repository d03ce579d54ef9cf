// Registers `ctxls mcp` with VS Code's agent mode where the editor has the
// API for it (1.101 and later); older editors run without it.

import * as os from 'node:os';
import * as vscode from 'vscode';
import { ensureExecutable, isFile } from './client';
import { MCP_PROVIDER_ID, mcpApi, mcpServerDefinitions, type StdioDefinition } from './mcp';

/** Registers the provider; returns undefined when this VS Code has no MCP API. */
export function registerMcpServers(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): vscode.Disposable | undefined {
  const api = mcpApi((vscode as unknown as { lm?: unknown }).lm);
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: StdioDefinition<vscode.Uri> }).McpStdioServerDefinition;
  if (!api || !Definition) {
    output.appendLine('[ctxls] this VS Code has no MCP server API; agent mode will not see ctxls mcp');
    return undefined;
  }
  const changed = new vscode.EventEmitter<void>();
  const provider = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () =>
      mcpServerDefinitions({
        folders: () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
        serverPath: () => vscode.workspace.getConfiguration('ctxls').get<string>('serverPath', ''),
        trusted: () => vscode.workspace.isTrusted,
        locate: {
          extensionPath: context.extensionPath,
          platform: process.platform,
          arch: process.arch,
          envPath: process.env.PATH,
          home: os.homedir(),
          isFile,
        },
        version: (context.extension.packageJSON as { version?: string }).version,
        Definition,
        file: (p) => vscode.Uri.file(p),
        bundled: ensureExecutable,
        log: (m) => output.appendLine(`[ctxls] ${m}`),
      }),
  };
  return vscode.Disposable.from(
    changed,
    api.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider),
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => changed.fire()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('ctxls.serverPath')) {
        changed.fire();
      }
    }),
  );
}
