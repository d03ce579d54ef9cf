// Builds the Executions view's nodes from `ctxls/execution/list` and
// `ctxls/execution/get` results. No `vscode` import: unit-tested.

import type { CommandExecution, Execution, ExecutionListResult } from './protocol';
import { itemsOf } from './protocol';
import { formatChain, formatTimestamp, shortId, statusIcon } from './format';

/** What every node of the view shows, and the execution it belongs to. */
interface NodeBase {
  key: string;
  sessionId: string;
  label: string;
  description: string;
  tooltip: string;
  icon: string;
}

export interface ExecutionNode extends NodeBase {
  kind: 'execution';
  current: boolean;
  state: string;
  /**
   * Context value for menus: `ctxlsExecution`, then `.current` for the
   * current execution and `.resumable` for one that did not complete.
   */
  contextValue: string;
  execution: Execution;
}

export interface CommandNode extends NodeBase {
  kind: 'command';
  status: string;
}

/** State of an execution (`state`, else derived from its commands). */
export function executionState(e: Execution): string {
  if (e.state) {
    return e.state;
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
  const planned = plannedCommands(e).length;
  if (planned > cmds.length) {
    return 'interrupted';
  }
  return 'completed';
}

/** Commands of an execution: one per step, the latest attempt of each. */
export function commandsOf(e: Execution): CommandExecution[] {
  return Array.isArray(e.commandHistory) ? e.commandHistory : [];
}

/** Planned commands of an execution's chain. */
export function plannedCommands(e: Execution): string[] {
  return Array.isArray(e.plan?.commands) ? e.plan.commands : [];
}

/** True when the execution is flagged current. */
export function isCurrentExecution(e: Execution): boolean {
  return e.isCurrent === true;
}

/** When the execution started (`startedAt`, else `created`). */
export function startedOf(e: Execution): string | undefined {
  return e.startedAt || e.created || undefined;
}

/** Command names shown for an execution: its plan, else the commands it ran. */
export function commandNamesOf(e: Execution): string[] {
  const planned = plannedCommands(e);
  if (planned.length > 0) {
    return planned;
  }
  // List summaries name only the latest command, which is not the chain.
  return commandsOf(e).map((c) => c.command);
}

/** Session id of the current execution, from the items' flag or the result's field. */
export function currentSessionId(result: ExecutionListResult | null | undefined): string | undefined {
  const flagged = itemsOf(result).find(isCurrentExecution);
  if (flagged) {
    return flagged.sessionId;
  }
  return result?.current || undefined;
}

/** Builds one execution node. */
export function executionNode(e: Execution, current: boolean): ExecutionNode {
  const state = executionState(e);
  const names = commandNamesOf(e);
  const label = names.length > 0 ? formatChain(names) : `execution ${shortId(e.sessionId)}`;
  const parts: string[] = [];
  if (current) {
    parts.push('● current');
  }
  parts.push(state);
  const total = e.summary?.commandsTotal;
  if (typeof total === 'number' && total > 0) {
    parts.push(`${e.summary?.commandsCompleted ?? 0}/${total} done`);
  }
  if (names.length === 0 && e.summary?.currentCommand) {
    parts.push(`latest /${e.summary.currentCommand}`);
  }
  const started = startedOf(e);
  if (started) {
    parts.push(formatTimestamp(started));
  }
  parts.push(shortId(e.sessionId));
  const tooltip = [
    `Session: ${e.sessionId}`,
    e.projectName ? `Project: ${e.projectName}` : '',
    e.projectType ? `Type: ${e.projectType}` : '',
    `State: ${state}${current ? ' (current)' : ''}`,
    started ? `Started: ${started}` : '',
    e.summary?.currentCommand ? `Latest command: ${e.summary.currentCommand}` : '',
    typeof e.summary?.commandsFailed === 'number' && e.summary.commandsFailed > 0
      ? `Failed steps: ${e.summary.commandsFailed}`
      : '',
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
    contextValue: 'ctxlsExecution' + (current ? '.current' : '') + (isResumable(e) ? '.resumable' : ''),
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
    // As instants: the server trims trailing zeros of the fraction, so
    // the text of two times does not sort as the times do.
    const at = Date.parse(startedOf(a.execution) ?? '');
    const bt = Date.parse(startedOf(b.execution) ?? '');
    return (Number.isNaN(bt) ? -Infinity : bt) - (Number.isNaN(at) ? -Infinity : at) || 0;
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
  const planned = plannedCommands(e);
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
