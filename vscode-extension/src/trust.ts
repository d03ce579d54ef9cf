// Workspace trust: what runs in Restricted Mode (nothing), and when an
// `exec` executor that the repository chose must be confirmed before it
// runs. No `vscode` import: unit-tested.

import * as path from 'node:path';
import type { ExecutorInfo } from './protocol.gen';

/** Message shown when a chain is asked to run in Restricted Mode. */
export const RESTRICTED_RUN_MESSAGE =
  'ctxls runs no chain in Restricted Mode: the repository could choose the program that runs. ' +
  'Diagnostics, hover and completion keep working. Trust the workspace to run chains.';

/**
 * The settings object mirrored to the server, as Restricted Mode allows:
 * in an untrusted workspace the executor is forced to `preview`, which runs
 * nothing, whatever `.ctxls.yaml` or the settings say.
 */
export function trustedServerSettings(settings: Record<string, unknown>, trusted: boolean): Record<string, unknown> {
  if (trusted) {
    return settings;
  }
  return { ...settings, executor: { kind: 'preview' } };
}

/** The key under which a confirmed command line is remembered. */
export function approvalKey(command: readonly string[]): string {
  return JSON.stringify(command);
}

/** What has to happen before a chain runs with an executor. */
export type ExecutorDecision =
  | { kind: 'run' }
  | { kind: 'confirm'; key: string; commandLine: string };

/**
 * Decides whether the executor may run without asking: a preview executor
 * runs nothing; an `exec` executor whose argv is the user's own
 * `ctxls.executor.command` (a machine setting, never the repository's)
 * runs; any other argv comes from the workspace's `.ctxls.yaml` and must
 * be confirmed once per workspace and command line.
 */
export function executorDecision(
  executor: ExecutorInfo | undefined,
  userCommand: readonly string[] | undefined,
  approved: readonly string[],
): ExecutorDecision {
  if (!executor || executor.kind !== 'exec' || executor.command.length === 0) {
    return { kind: 'run' };
  }
  if (userCommand && userCommand.length > 0 && sameArgv(executor.command, userCommand)) {
    return { kind: 'run' };
  }
  const key = approvalKey(executor.command);
  if (approved.includes(key)) {
    return { kind: 'run' };
  }
  return { kind: 'confirm', key, commandLine: formatCommandLine(executor.command) };
}

/** Adds key to the remembered approvals, once. */
export function withApproval(approved: readonly string[], key: string): string[] {
  return approved.includes(key) ? [...approved] : [...approved, key];
}

/** The text of the confirmation asked before a workspace's executor first runs. */
export function confirmationText(commandLine: string): string {
  return (
    `This workspace's .ctxls.yaml runs each chain step with:\n\n${commandLine}\n\n` +
    'The prompt goes to its standard input. Run it? You will not be asked again for this command line in this workspace.'
  );
}

function sameArgv(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * argv as a shell would read it back: arguments holding anything but
 * plain characters are single-quoted, so that spaces, quotes and control
 * characters cannot make one argument look like several, or hide.
 */
export function formatCommandLine(argv: readonly string[]): string {
  return argv
    .map((a) => {
      if (a !== '' && /^[\w@%+=:,./-]+$/.test(a)) {
        return a;
      }
      // eslint-disable-next-line no-control-regex
      const visible = a.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
      return `'${visible.replace(/'/g, `'\\''`)}'`;
    })
    .join(' ');
}

/**
 * Whether the server binary at command may be started: in an untrusted
 * workspace, not a program inside the workspace's folders (a user-level
 * relative `ctxls.serverPath` resolves against the workspace).
 */
export function serverAllowed(command: string, folders: readonly string[], trusted: boolean): boolean {
  if (trusted) {
    return true;
  }
  return !folders.some((f) => {
    const rel = path.relative(f, command);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
}
