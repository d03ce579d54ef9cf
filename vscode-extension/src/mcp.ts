// The ctxls MCP server as VS Code's agent mode sees it: one `ctxls mcp`
// per workspace folder, started with the same binary as the language
// server. No `vscode` import: unit-tested.

import * as path from 'node:path';
import type { ServerLocation } from './settings';

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
