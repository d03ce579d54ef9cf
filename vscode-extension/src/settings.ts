// Maps the `ctxls.*` VS Code settings to the object mirrored to the server,
// and resolves the server binary. No `vscode` import: unit-tested.

import * as path from 'node:path';

/** Setting keys (relative to `ctxls.`) mirrored to the server. */
export const MIRRORED_KEYS = [
  'tokenizer',
  'driftThreshold',
  'budget.files',
  'budget.tokens',
  'executor.kind',
  'executor.command',
  'executor.timeout',
] as const;

/**
 * Settings of scope `machine` (see package.json): only the user's own value
 * counts, so that a checked-in `.vscode/settings.json` cannot choose the
 * program a chain runs.
 */
export const MACHINE_KEYS: ReadonlySet<string> = new Set(['executor.kind', 'executor.command']);

/** The values VS Code knows for one setting (shape of WorkspaceConfiguration.inspect). */
export interface Inspected<T = unknown> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/** The explicitly set value of a setting: folder, then workspace, then user. */
export function explicitValue<T>(i: Inspected<T> | undefined): T | undefined {
  if (!i) {
    return undefined;
  }
  for (const v of [i.workspaceFolderValue, i.workspaceValue, i.globalValue]) {
    if (v !== undefined && v !== null) {
      return v;
    }
  }
  return undefined;
}

/**
 * The `ctxls` object sent in `workspace/didChangeConfiguration`
 * (`{settings: {ctxls: …}}`). Only settings the user set explicitly are
 * included, so `.ctxls.yaml` keeps authority over everything else; dotted
 * keys become nested objects (`budget.files` → `{budget: {files}}`).
 * Empty strings and empty lists count as unset.
 */
export function serverSettings(inspect: (key: string) => Inspected | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of MIRRORED_KEYS) {
    const i = inspect(key);
    const v = MACHINE_KEYS.has(key) ? i?.globalValue ?? undefined : explicitValue(i);
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) {
      continue;
    }
    const parts = key.split('.');
    let obj = out;
    for (const p of parts.slice(0, -1)) {
      if (typeof obj[p] !== 'object' || obj[p] === null) {
        obj[p] = {};
      }
      obj = obj[p] as Record<string, unknown>;
    }
    obj[parts[parts.length - 1]] = v;
  }
  return out;
}

/** Where the server binary was found. */
export interface ServerLocation {
  command: string;
  source: 'setting' | 'bundled' | 'path';
}

export interface ResolveOptions {
  /** Value of `ctxls.serverPath`. */
  setting?: string;
  extensionPath: string;
  platform: string;
  arch: string;
  /** `PATH` of the extension host. */
  envPath?: string;
  /** Workspace folder used to resolve a relative `ctxls.serverPath`. */
  workspaceFolder?: string;
  /** Home directory used to expand `~`. */
  home?: string;
  isFile: (p: string) => boolean;
}

/** Directory, inside the extension, of the bundled server for a platform. */
export function bundledServerPath(extensionPath: string, platform: string, arch: string): string {
  const exe = platform === 'win32' ? 'ctxls.exe' : 'ctxls';
  return path.join(extensionPath, 'server', `${platform}-${arch}`, exe);
}

/**
 * Finds the server: the `ctxls.serverPath` setting when set, else the binary
 * bundled for this platform, else `ctxls` on PATH. Returns undefined with a
 * reason when nothing is found.
 */
export function resolveServer(o: ResolveOptions): ServerLocation | { error: string } {
  const setting = (o.setting ?? '').trim();
  if (setting !== '') {
    let p = setting;
    if (p === '~' || p.startsWith('~/')) {
      p = path.join(o.home ?? '', p.slice(1));
    }
    if (!path.isAbsolute(p) && (p.includes('/') || p.includes('\\')) && o.workspaceFolder) {
      p = path.join(o.workspaceFolder, p);
    }
    if (path.isAbsolute(p)) {
      return o.isFile(p) ? { command: p, source: 'setting' } : { error: `ctxls.serverPath: ${p} does not exist` };
    }
    const found = searchPath(p, o.envPath, o.platform, o.isFile);
    return found ? { command: found, source: 'setting' } : { error: `ctxls.serverPath: ${p} is not on PATH` };
  }
  const bundled = bundledServerPath(o.extensionPath, o.platform, o.arch);
  if (o.isFile(bundled)) {
    return { command: bundled, source: 'bundled' };
  }
  const onPath = searchPath('ctxls', o.envPath, o.platform, o.isFile);
  if (onPath) {
    return { command: onPath, source: 'path' };
  }
  return {
    error:
      `No ctxls server for ${o.platform}-${o.arch}: none is bundled, none is on PATH. ` +
      'Install ctxls (npm install -g ctxls, or a release archive) or set ctxls.serverPath.',
  };
}

/** First `name` found in the directories of PATH. */
export function searchPath(
  name: string,
  envPath: string | undefined,
  platform: string,
  isFile: (p: string) => boolean,
): string | undefined {
  const sep = platform === 'win32' ? ';' : ':';
  const exts = platform === 'win32' && !/\.[a-z]+$/i.test(name) ? ['.exe', '.cmd', ''] : [''];
  for (const dir of (envPath ?? '').split(sep)) {
    if (!dir) {
      continue;
    }
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isFile(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}
