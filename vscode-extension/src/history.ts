// Renders a conversation (`ctxls/history/list`) and an execution's shared
// data as readable documents. No `vscode` import: unit-tested.

import type { Execution, HistoryMessage } from './protocol';
import { commandsOf, executionState } from './executionsTree';
import { fenceFor, formatChain, formatTokens } from './format';

/**
 * Messages in conversation order: by createdAt, then by id, stable otherwise.
 * Times are compared as instants, not as text: the server trims trailing
 * zeros of the fraction ("…42.9Z" is before "…42.918Z").
 */
export function orderMessages(messages: readonly HistoryMessage[]): HistoryMessage[] {
  return messages
    .map((m, i) => ({ m, i }))
    .sort((a, b) => {
      const at = Date.parse(a.m.createdAt ?? '');
      const bt = Date.parse(b.m.createdAt ?? '');
      if (!Number.isNaN(at) && !Number.isNaN(bt) && at !== bt) {
        return at - bt;
      }
      if (typeof a.m.id === 'number' && typeof b.m.id === 'number') {
        return a.m.id - b.m.id;
      }
      return a.i - b.i;
    })
    .map((x) => x.m);
}

function roleTitle(role: string): string {
  return role ? role[0].toUpperCase() + role.slice(1) : 'Message';
}

/**
 * A markdown document of a conversation: one heading per message with role,
 * command, run id, mode and token count, the tokenizer named after the
 * total when the server names it; the content in a fenced block so
 * markdown in prompts does not restructure the document.
 */
export function renderConversation(conversationId: string, messages: readonly HistoryMessage[], tokenizer?: string): string {
  const ordered = orderMessages(messages.filter((m) => m && typeof m.role === 'string'));
  const total = ordered.reduce((s, m) => s + (typeof m.tokens === 'number' ? m.tokens : 0), 0);
  const out: string[] = [];
  out.push(`# Conversation ${conversationId}`);
  out.push('');
  if (ordered.length === 0) {
    out.push('No messages recorded for this conversation.');
    return out.join('\n') + '\n';
  }
  const commands = [...new Set(ordered.map((m) => m.command).filter((c): c is string => !!c))];
  out.push(
    `${ordered.length} ${ordered.length === 1 ? 'message' : 'messages'} · ${formatTokens(total)}${tokenizer ? ` (${tokenizer})` : ''}` +
      (commands.length > 0 ? ` · commands: ${formatChain(commands.map((c) => '/' + c))}` : ''),
  );
  ordered.forEach((m, i) => {
    const meta: string[] = [];
    if (m.command) {
      meta.push(`/${m.command}`);
    }
    if (m.runId) {
      meta.push(`run ${m.runId}`);
    }
    if (m.mode) {
      meta.push(`${m.mode} mode`);
    }
    meta.push(formatTokens(m.tokens));
    if (m.createdAt) {
      meta.push(m.createdAt);
    }
    out.push('');
    out.push(`## ${i + 1}. ${roleTitle(m.role)} — ${meta.join(' · ')}`);
    out.push('');
    const content = m.content ?? '';
    const fence = fenceFor(content);
    out.push(`${fence}text`);
    out.push(content);
    out.push(fence);
  });
  return out.join('\n') + '\n';
}

/** A JSON document of an execution's shared data, with a header comment-free summary. */
export function renderSharedData(e: Execution): string {
  const data = e.sharedData ?? {};
  return JSON.stringify(data, null, 2) + '\n';
}

/** A short markdown summary of an execution (used above shared data and in tooltips). */
export function renderExecutionSummary(e: Execution): string {
  const cmds = commandsOf(e);
  const lines = [`# Execution ${e.sessionId}`, '', `State: ${executionState(e)}`];
  if (e.projectName) {
    lines.push(`Project: ${e.projectName}`);
  }
  if (cmds.length > 0) {
    lines.push('', '| # | command | status | attempts |', '|---:|---|---|---:|');
    cmds.forEach((c, i) => lines.push(`| ${i + 1} | /${c.command} | ${c.status ?? ''} | ${c.attempts ?? ''} |`));
  }
  return lines.join('\n') + '\n';
}
