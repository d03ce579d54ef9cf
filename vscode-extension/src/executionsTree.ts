// Builds the Executions view's nodes from `ctxls/execution/list` and
// `ctxls/execution/get` results. No `vscode` import: unit-tested.

import type { CommandExecution, Execution, ExecutionListResult } from './protocol';
import { itemsOf } from './protocol';
import { formatChain, formatTimestamp, shortId, statusIcon } from './format';

export interface ExecutionNode {
  kind: 'execution';
  key: string;
  sessionId: string;
  label: string;
  description: string;
  tooltip: string;
  icon: string;
  current: boolean;
  state: string;
  /** Context value for menus: `ctxlsExecution` or `ctxlsExecution.current`. */
  contextValue: string;
  execution: Execution;
}

export interface CommandNode {
  kind: 'command';
  key: string;
  sessionId: string;
  label: string;
  description: string;
  tooltip: string;
  icon: string;
  status: string;
}

/** State of an execution (`state`, else `status`, else derived from its commands). */
export function executionState(e: Execution): string {
  if (e.state) {
    return e.state;
  }
  if (e.status) {
    return e.status;
  }
  const cmds = commandsOf(e);
  if (cmds.length === 0) {
    return 'pending';
  }
  if (cmds.some((c) => c.status === 'failed')) {
    return 'failed';
  }
  if (cmds.some((c) => !c.completedAt && (c.status === 'running' || !c.status))) {
    return 'running';
  }
  const planned = e.chain?.length ?? 0;
  if (planned > cmds.length) {
    return 'interrupted';
  }
  return 'completed';
}

/** Commands of an execution, from `commands` or `commandHistory`. */
export function commandsOf(e: Execution): CommandExecution[] {
  if (Array.isArray(e.commands)) {
    return e.commands;
  }
  if (Array.isArray(e.commandHistory)) {
    return e.commandHistory;
  }
  return [];
}

/** Session id of the current execution, from the items' flag or the result's field. */
export function currentSessionId(result: ExecutionListResult | null | undefined): string | undefined {
  const flagged = itemsOf(result).find((e) => e.current === true);
  if (flagged) {
    return flagged.sessionId;
  }
  return result?.current ?? result?.currentSessionId ?? undefined;
}

/** Builds one execution node. */
export function executionNode(e: Execution, current: boolean): ExecutionNode {
  const state = executionState(e);
  const cmds = commandsOf(e);
  const names = e.chain && e.chain.length > 0 ? e.chain : cmds.map((c) => c.command);
  const label = names.length > 0 ? formatChain(names) : shortId(e.sessionId);
  const parts: string[] = [];
  if (current) {
    parts.push('● current');
  }
  parts.push(state);
  if (e.startedAt) {
    parts.push(formatTimestamp(e.startedAt));
  }
  parts.push(shortId(e.sessionId));
  const tooltip = [
    `Session: ${e.sessionId}`,
    e.projectName ? `Project: ${e.projectName}` : '',
    e.projectType ? `Type: ${e.projectType}` : '',
    `State: ${state}${current ? ' (current)' : ''}`,
    e.startedAt ? `Started: ${e.startedAt}` : '',
    e.updatedAt ? `Updated: ${e.updatedAt}` : '',
  ]
    .filter((l) => l !== '')
    .join('\n');
  return {
    kind: 'execution',
    key: `execution:${e.sessionId}`,
    sessionId: e.sessionId,
    label,
    description: parts.join(' · '),
    tooltip,
    icon: current ? 'star-full' : statusIcon(state),
    current,
    state,
    contextValue: current ? 'ctxlsExecution.current' : 'ctxlsExecution',
    execution: e,
  };
}

/** Nodes of the execution list, the current one first, then newest first. */
export function buildExecutionNodes(result: ExecutionListResult | null | undefined): ExecutionNode[] {
  const current = currentSessionId(result);
  const nodes = itemsOf(result)
    .filter((e) => e && typeof e.sessionId === 'string' && e.sessionId !== '')
    .map((e) => executionNode(e, e.sessionId === current));
  nodes.sort((a, b) => {
    if (a.current !== b.current) {
      return a.current ? -1 : 1;
    }
    const at = a.execution.updatedAt ?? a.execution.startedAt ?? '';
    const bt = b.execution.updatedAt ?? b.execution.startedAt ?? '';
    return bt.localeCompare(at);
  });
  return nodes;
}

/**
 * Command nodes of one execution: the commands that ran (with status and
 * attempts), then the planned commands that have not started yet.
 */
export function buildCommandNodes(e: Execution): CommandNode[] {
  const cmds = commandsOf(e);
  const nodes: CommandNode[] = cmds.map((c, i) => {
    const status = c.status || (c.completedAt ? 'completed' : 'running');
    const attempts = typeof c.attempts === 'number' ? c.attempts : undefined;
    const parts = [status];
    if (attempts !== undefined && attempts > 1) {
      parts.push(`${attempts} attempts`);
    } else if (attempts === 1) {
      parts.push('1 attempt');
    }
    if (c.contextLoaded && c.contextLoaded.length > 0) {
      parts.push(`${c.contextLoaded.length} context`);
    }
    const tooltip = [
      `Command: ${c.command}`,
      `Status: ${status}`,
      attempts !== undefined ? `Attempts: ${attempts}` : '',
      c.startedAt ? `Started: ${c.startedAt}` : '',
      c.completedAt ? `Completed: ${c.completedAt}` : '',
      c.runId ? `Run: ${c.runId}` : '',
      c.contextLoaded && c.contextLoaded.length > 0 ? `Context: ${c.contextLoaded.join(', ')}` : '',
    ]
      .filter((l) => l !== '')
      .join('\n');
    return {
      kind: 'command',
      key: `command:${e.sessionId}:${i}`,
      sessionId: e.sessionId,
      label: `${i + 1}. ${c.command}`,
      description: parts.join(' · '),
      tooltip,
      icon: statusIcon(status),
      status,
    };
  });
  const planned = e.chain ?? [];
  for (let i = cmds.length; i < planned.length; i++) {
    nodes.push({
      kind: 'command',
      key: `command:${e.sessionId}:${i}`,
      sessionId: e.sessionId,
      label: `${i + 1}. ${planned[i]}`,
      description: 'pending',
      tooltip: `Command: ${planned[i]}\nStatus: pending`,
      icon: statusIcon('pending'),
      status: 'pending',
    });
  }
  return nodes;
}

/** True when an execution can be resumed (it did not complete). */
export function isResumable(e: Execution): boolean {
  const s = executionState(e).toLowerCase();
  return !['completed', 'complete', 'success', 'done'].includes(s);
}
