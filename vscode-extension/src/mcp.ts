// The ctxls MCP server as VS Code's agent mode sees it: one `ctxls mcp`
// per workspace folder, started with the same binary as the language
// server. No `vscode` import: unit-tested.

import * as path from 'node:path';
import { resolveServer, type ResolveOptions, type ServerLocation } from './settings';
import { serverAllowed } from './trust';

/** Id of the MCP server definition provider, as package.json declares it. */
export const MCP_PROVIDER_ID = 'ctxls.mcp';

/** One stdio MCP server to start. */
export interface McpServerSpec {
  label: string;
  command: string;
  args: string[];
  cwd: string;
}

/**
 * The MCP servers of the workspace folders, or none when no server binary
 * was found (the language server reports that).
 */
export function mcpServerSpecs(found: ServerLocation | { error: string }, folders: readonly string[]): McpServerSpec[] {
  if ('error' in found) {
    return [];
  }
  return folders.map((dir) => ({
    label: folders.length > 1 ? `ctxls: ${path.basename(dir)}` : 'ctxls',
    command: found.command,
    args: ['mcp', '--dir', dir],
    cwd: dir,
  }));
}

/** The part of `vscode.lm` that registers MCP servers (VS Code 1.101 and later). */
export interface McpApi {
  registerMcpServerDefinitionProvider(id: string, provider: unknown): { dispose(): unknown };
}

/** Returns the `vscode.lm` MCP API when this VS Code has it. */
export function mcpApi(lm: unknown): McpApi | undefined {
  const f = (lm as { registerMcpServerDefinitionProvider?: unknown } | undefined)?.registerMcpServerDefinitionProvider;
  return typeof f === 'function' ? (lm as McpApi) : undefined;
}

/** The constructor of vscode.McpStdioServerDefinition (1.101 and later). */
export type StdioDefinition<U> = new (
  label: string,
  command: string,
  args?: string[],
  env?: Record<string, string | number | null>,
  version?: string,
) => { cwd?: U };

/** What the MCP server definition provider reads of the editor. */
export interface McpProviderEnv<U> {
  /** Paths of the workspace folders. */
  folders(): string[];
  /** The `ctxls.serverPath` setting. */
  serverPath(): string;
  /** Whether the workspace is trusted. */
  trusted(): boolean;
  /** Where the binary is looked for besides the setting, as for the language server. */
  locate: Omit<ResolveOptions, 'setting' | 'workspaceFolder'>;
  /** The extension's version, reported as the server definitions'. */
  version?: string;
  Definition: StdioDefinition<U>;
  /** The URI of a path. */
  file(p: string): U;
  /** Called with the binary when it is the one bundled with the extension, before it is named. */
  bundled?(command: string): void;
  /** Says why no server is defined. */
  log(message: string): void;
}

/**
 * The server definitions VS Code's agent mode asks for: `ctxls mcp --dir
 * FOLDER` in each workspace folder, with the binary the language server
 * uses (the configured `ctxls.serverPath`, else the bundled one, else
 * `ctxls` on PATH) and under the same rule of trust: in Restricted Mode,
 * never a program inside the workspace.
 */
export function mcpServerDefinitions<U>(env: McpProviderEnv<U>): InstanceType<StdioDefinition<U>>[] {
  const folders = env.folders();
  const found = resolveServer({ ...env.locate, setting: env.serverPath(), workspaceFolder: folders[0] });
  if ('error' in found) {
    env.log(`no MCP server: ${found.error}`);
    return [];
  }
  if (!serverAllowed(found.command, folders, env.trusted())) {
    env.log(`no MCP server: ${found.command} lies in the workspace, which is not trusted`);
    return [];
  }
  if (found.source === 'bundled') {
    env.bundled?.(found.command);
  }
  return mcpServerSpecs(found, folders).map((s) => {
    const d = new env.Definition(s.label, s.command, s.args, {}, env.version);
    d.cwd = env.file(s.cwd);
    return d;
  });
}
