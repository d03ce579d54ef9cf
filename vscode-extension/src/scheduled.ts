// Views that recompute in the background, after a delay, the latest
// request winning.

import type { Disposable } from 'vscode';
import type { RequestMethod, RequestParams, RequestResult } from './protocol';

/** The part of the client a quiet request needs. */
export interface BackgroundServer {
  request<M extends RequestMethod>(method: M, params: RequestParams<M>): Promise<RequestResult<M>>;
  readonly output: { appendLine(line: string): void };
}

/**
 * Runs `update` `delayMs` after the last call of `schedule`. An update
 * that awaits asks `latest()` afterwards: false says a later update has
 * started, whose result is to stand.
 */
export class Scheduled implements Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private generation = 0;

  constructor(private readonly update: (latest: () => boolean) => Promise<void>) {}

  schedule(delayMs: number): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      const gen = ++this.generation;
      void this.update(() => gen === this.generation);
    }, delayMs);
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
  }
}

/**
 * Asks the server for what the user did not ask for in so many words (a
 * view that updates in the background, the choices of a picker): a
 * failure goes to the output channel, not to a message, and gives
 * undefined.
 */
export async function quietRequest<M extends RequestMethod>(
  server: BackgroundServer,
  method: M,
  params: RequestParams<M>,
): Promise<RequestResult<M> | undefined> {
  try {
    return await server.request(method, params);
  } catch (err) {
    server.output.appendLine(`[ctxls] ${method}: ${String(err)}`);
    return undefined;
  }
}
