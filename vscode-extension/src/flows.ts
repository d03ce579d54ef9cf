// Multi-step interactions with the server, written against small function
// parameters instead of `vscode` so they can be unit-tested.

import type { CommandInfo, ExecutionDeleteParams, ExecutionDeleteResult } from './protocol';
import { commandPickItems, type CommandChoice, type PickItem } from './quickPick';

/** Outcome of the two-step delete. */
export type DeleteOutcome = 'deleted' | 'declined' | 'failed';

/**
 * Deletes an execution with the server's two-step token: the first request
 * returns a confirmToken, the user confirms, the second request carries it.
 * A server that deletes on the first call (no token returned) is accepted.
 */
export async function deleteExecutionFlow(
  sessionId: string,
  request: (params: ExecutionDeleteParams) => Promise<ExecutionDeleteResult | null | undefined>,
  confirm: (message: string) => Promise<boolean>,
): Promise<{ outcome: DeleteOutcome; message?: string }> {
  const first = await request({ sessionId });
  const token = first?.confirmToken;
  if (!token) {
    if (first?.deleted === true) {
      return { outcome: 'deleted' };
    }
    return { outcome: 'failed', message: first?.message || 'the server returned no confirmation token' };
  }
  // The server's message addresses API callers; the user gets a plain question.
  const ok = await confirm(`Delete execution ${sessionId} and everything it recorded?`);
  if (!ok) {
    return { outcome: 'declined' };
  }
  const second = await request({ sessionId, confirmToken: token });
  // Only the server's word that it deleted counts: a failed request (an
  // expired token, a lost connection) must not read as success.
  if (second?.deleted !== true) {
    return { outcome: 'failed', message: second?.message || 'the server did not delete the execution' };
  }
  return { outcome: 'deleted' };
}

/**
 * Lets the user build a chain by picking commands in order. `pick` shows
 * items and returns the chosen one, or undefined when the user escapes.
 * Returns the commands, or undefined when cancelled or empty.
 */
export async function buildChainFlow(
  commands: readonly CommandInfo[],
  pick: (items: Array<PickItem<CommandChoice>>, step: number, picked: readonly string[]) => Promise<PickItem<CommandChoice> | undefined>,
  maxSteps = 50,
): Promise<string[] | undefined> {
  const picked: string[] = [];
  for (let round = 0; round < maxSteps * 2; round++) {
    const choice = await pick(commandPickItems(commands, picked), picked.length + 1, picked);
    if (!choice) {
      return undefined;
    }
    const v = choice.value;
    if (v.kind === 'done') {
      return picked.length > 0 ? picked : undefined;
    }
    if (v.kind === 'undo') {
      picked.pop();
      continue;
    }
    picked.push(v.name);
    if (picked.length >= maxSteps) {
      return picked;
    }
  }
  return picked.length > 0 ? picked : undefined;
}

/** Text of a `$/progress` report for a chain, from the standard fields. */
export function progressText(value: { title?: string; message?: string; percentage?: number }): string {
  return [value.title, value.message].filter((s) => typeof s === 'string' && s !== '').join(': ');
}

/**
 * Increment to pass to vscode's Progress.report given the previous and the
 * new percentage (vscode adds increments; LSP sends absolute percentages).
 */
export function progressIncrement(previous: number, next: number | undefined): number {
  if (typeof next !== 'number' || !Number.isFinite(next)) {
    return 0;
  }
  const clamped = Math.max(0, Math.min(100, next));
  return Math.max(0, clamped - previous);
}
