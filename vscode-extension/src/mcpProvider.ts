// Registers `ctxls mcp` with VS Code's agent mode where the editor has the
// API for it (1.101 and later); older editors run without it.

import * as os from 'node:os';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { MCP_PROVIDER_ID, mcpApi, mcpServerSpecs } from './mcp';
import { resolveServer } from './settings';

/** The constructor of vscode.McpStdioServerDefinition, absent before 1.101. */
type StdioDefinition = new (
  label: string,
  command: string,
  args?: string[],
  env?: Record<string, string | number | null>,
  version?: string,
) => { cwd?: vscode.Uri };

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Registers the provider; returns undefined when this VS Code has no MCP API. */
export function registerMcpServers(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): vscode.Disposable | undefined {
  const api = mcpApi((vscode as unknown as { lm?: unknown }).lm);
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: StdioDefinition }).McpStdioServerDefinition;
  if (!api || !Definition) {
    output.appendLine('[ctxls] this VS Code has no MCP server API; agent mode will not see ctxls mcp');
    return undefined;
  }
  const changed = new vscode.EventEmitter<void>();
  const provider = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => {
      const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
      const found = resolveServer({
        setting: vscode.workspace.getConfiguration('ctxls').get<string>('serverPath', ''),
        extensionPath: context.extensionPath,
        platform: process.platform,
        arch: process.arch,
        envPath: process.env.PATH,
        workspaceFolder: folders[0],
        home: os.homedir(),
        isFile,
      });
      const version = (context.extension.packageJSON as { version?: string }).version;
      return mcpServerSpecs(found, folders).map((s) => {
        const d = new Definition(s.label, s.command, s.args, {}, version);
        d.cwd = vscode.Uri.file(s.cwd);
        return d;
      });
    },
  };
  return vscode.Disposable.from(
    changed,
    api.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider),
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('ctxls.serverPath')) {
        changed.fire();
      }
    }),
  );
}
