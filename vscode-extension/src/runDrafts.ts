// What the user typed for a chain run that did not start (the executor's
// confirmation was declined): kept so that running the same chain again
// does not ask for it again. No `vscode` import: unit-tested.

/** A chain and the input typed for it. */
export interface RunDraft {
  commands: readonly string[];
  input: string;
}

/** Keeps the input of the latest run that did not start. */
export class RunDrafts {
  private draft: RunDraft | undefined;

  /** Keeps what was typed for a run of commands that did not start. */
  keep(commands: readonly string[], input: string): void {
    this.draft = { commands: [...commands], input };
  }

  /** The input kept for exactly these commands, in this order, if any. */
  inputFor(commands: readonly string[]): string | undefined {
    const d = this.draft;
    if (!d || d.commands.length !== commands.length || !d.commands.every((c, i) => c === commands[i])) {
      return undefined;
    }
    return d.input;
  }

  /** Forgets the kept input: the run started. */
  clear(): void {
    this.draft = undefined;
  }
}
