// Workspace trust: what runs in Restricted Mode (nothing), and when an
// `exec` executor that the repository chose must be confirmed before it
// runs. The server keeps the user's answers, outside the workspace, and
// refuses a chain whose executor it has no answer for, whatever the client
// sends: the extension asks and passes the answer on. No `vscode` import:
// unit-tested.

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

/** What has to happen before a chain runs with an executor. */
export type ExecutorDecision =
  | { kind: 'run' }
  | { kind: 'confirm'; command: string[]; commandLine: string };

/**
 * Decides whether the executor may run without asking, as the server
 * reports it in `ctxls/chain/list`: a preview executor runs nothing, and
 * an `exec` executor runs when its command line is the user's own
 * `ctxls.executor.command` (a machine setting, never the repository's) or
 * the user agreed to it for this workspace (`needsConsent` is false).
 * Otherwise the command line comes from the workspace's `.ctxls.yaml` and
 * the user is asked; `ctxls/trust/grant` records the answer.
 */
export function executorDecision(executor: ExecutorInfo | undefined): ExecutorDecision {
  if (!executor || executor.kind !== 'exec' || executor.command.length === 0 || !executor.needsConsent) {
    return { kind: 'run' };
  }
  return { kind: 'confirm', command: [...executor.command], commandLine: formatCommandLine(executor.command) };
}

/** The text of the confirmation asked before a workspace's executor first runs. */
export function confirmationText(commandLine: string): string {
  return (
    `This workspace's .ctxls.yaml runs each chain step with:\n\n${commandLine}\n\n` +
    'The prompt goes to its standard input. Run it? ctxls keeps the answer outside the workspace and asks again ' +
    'when the command line, or the program of the workspace that it runs, changes.'
  );
}

/**
 * argv as a shell would read it back, as the server and the command line
 * show it: arguments holding anything but plain characters are
 * single-quoted, control characters are written as \xNN and other
 * invisible ones (right-to-left overrides, zero-width spaces) as \uNNNN,
 * so that spaces, quotes and escapes cannot make one argument look like
 * several, or hide one.
 */
export function formatCommandLine(argv: readonly string[]): string {
  return argv
    .map((a) => {
      if (a !== '' && /^[\w@%+=:,./-]+$/.test(a)) {
        return a;
      }
      const visible = a.replace(/[\p{C}\p{Z}]/gu, (c) => {
        const n = c.codePointAt(0) ?? 0;
        if (c === ' ') {
          return c;
        }
        return n < 0x80 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
      });
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
