// End-to-end test of the packaged extension in a real VS Code build
// (code-server) driven through Debian's chromium with playwright-core.
// Run through scripts/e2e.sh, which installs code-server and packages the
// extension first.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const extDir = resolve(here, '..', '..');
const repoRoot = resolve(extDir, '..');

const env = process.env;
const codeServer = env.CTXLS_E2E_CODE_SERVER;
const nodeBinDir = env.CTXLS_E2E_NODE_BIN_DIR;
const chromiumPath = env.CTXLS_E2E_CHROMIUM || '/usr/bin/chromium';
const vsix = env.CTXLS_E2E_VSIX || join(extDir, 'ctxls.vsix');
const artifacts = env.CTXLS_E2E_ARTIFACTS || join(extDir, 'test-artifacts');
const librarySource = env.CTXLS_E2E_WORKSPACE || join(repoRoot, 'examples', 'library');
// Optional: test against this server binary instead of the bundled one.
const serverPathSetting = env.CTXLS_E2E_SERVER_PATH || '';

const WAIT = 60_000; // generous: two shared cores, cold workbench
const STEP_TIMEOUT = 240_000;

let tmp;
let workspace;
let serverProc;
let browser;
let page;
let shot = 0;
const browserLog = [];

function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

async function waitForHttp(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    if (serverProc.exitCode !== null) {
      throw new Error(`code-server exited with ${serverProc.exitCode}; see test-artifacts/code-server.log`);
    }
    try {
      const res = await fetch(url);
      if (res.ok) {
        return;
      }
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms: ${last}`);
}

async function screenshot(name) {
  shot += 1;
  const file = join(artifacts, `${String(shot).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** With CTXLS_E2E_UPDATE_MEDIA=1, a screenshot also replaces the README's copy in media/. */
function updateMedia(file, name) {
  if (env.CTXLS_E2E_UPDATE_MEDIA === '1') {
    copyFileSync(file, join(extDir, 'media', name));
  }
}

function codeServerEnv() {
  return { ...env, PATH: `${nodeBinDir}:${env.PATH}` };
}

/** Defines a test that leaves a screenshot behind when it fails. */
function step(title, name, fn) {
  test(title, { timeout: STEP_TIMEOUT }, async () => {
    try {
      assertServerUp();
      await fn();
    } catch (err) {
      await screenshot(`${name}-FAILED`).catch(() => undefined);
      throw err;
    }
  });
}

/** Runs a workbench command through the command palette (F1). */
async function runCommand(label) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: WAIT });
  await input.fill(`>${label}`);
  const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible', timeout: WAIT });
  await row.click();
}

/** Opens a workspace file with Quick Open. */
async function openFile(relPath) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: WAIT });
  await input.fill(relPath);
  const base = relPath.split('/').pop();
  const row = page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: base })
    .filter({ hasText: dirname(relPath) === '.' ? '' : dirname(relPath) })
    .first();
  await row.waitFor({ state: 'visible', timeout: WAIT });
  await row.click();
  await page
    .locator(`.tabs-container .tab[data-resource-name="${base}"], .tabs-container .tab:has-text("${base}")`)
    .first()
    .waitFor({ state: 'visible', timeout: WAIT });
  await page.locator('.editor-instance .monaco-editor .view-lines').first().waitFor({ state: 'visible', timeout: WAIT });
}

/** Moves the cursor of the active editor to a 1-based line and column. */
async function goTo(line, column) {
  await runCommand('Go to Line/Column');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.fill(`:${line}:${column}`);
  await input.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: WAIT });
}

/** Line and column (1-based) of the first occurrence of `needle` in a file. */
function positionOf(file, needle, offsetInNeedle = 0) {
  const text = readFileSync(file, 'utf8');
  const idx = text.indexOf(needle);
  assert.ok(idx >= 0, `${needle} not found in ${file}`);
  const before = text.slice(0, idx + offsetInNeedle);
  const line = before.split('\n').length;
  const column = idx + offsetInNeedle - before.lastIndexOf('\n');
  return { line, column };
}

/** The ctxls output channel as written to the extension host logs. */
function serverLog() {
  const logs = join(tmp, 'user-data', 'logs');
  if (!existsSync(logs)) {
    return '';
  }
  const found = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        walk(p);
      } else if (e.name === 'ctxls.log') {
        found.push(readFileSync(p, 'utf8'));
      }
    }
  };
  walk(logs);
  return found.join('\n');
}

/** Raised when the language server cannot start: no point in waiting. */
class ServerDown extends Error {}

/** Throws ServerDown when the ctxls log shows that the server failed to start or died. */
function assertServerUp() {
  const log = serverLog();
  const fatal = /couldn't create connection to server|Server initialization failed|server failed to start|No ctxls server for|ctxls\.serverPath: .* (does not exist|is not on PATH)|The ctxls server crashed/.exec(log);
  if (fatal) {
    throw new ServerDown(`the ctxls server is not running (${fatal[0]}); its log:\n${log.slice(0, 4000)}`);
  }
}

/** Waits until `fn` returns a truthy value, polling. */
async function eventually(fn, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    assertServerUp();
    try {
      const v = await fn();
      if (v) {
        return v;
      }
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last}` : ''}`);
}

/**
 * Runs a chain command (Preview or Run Chain), picks the `feature` chain,
 * with a screenshot of the pick when `shot` names one, and gives it the
 * input of the chain steps.
 */
async function startFeatureChain(label, shot) {
  await runCommand(label);
  const rowFeature = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'feature' }).first();
  await rowFeature.waitFor({ state: 'visible', timeout: WAIT });
  if (shot) {
    await screenshot(shot);
  }
  await rowFeature.click();
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await eventually(
    async () => /Input for/.test(await page.locator('.quick-input-widget').innerText()),
    WAIT,
    'the chain input box',
  );
  await input.fill('add pagination to the /items endpoint');
  await input.press('Enter');
}

before(async () => {
  assert.ok(codeServer && existsSync(codeServer), 'CTXLS_E2E_CODE_SERVER must point at code-server (run scripts/e2e.sh)');
  assert.ok(nodeBinDir, 'CTXLS_E2E_NODE_BIN_DIR must be set (run scripts/e2e.sh)');
  assert.ok(existsSync(vsix), `${vsix} is missing: run npm run package`);
  assert.ok(existsSync(librarySource), `${librarySource} is missing`);
  rmSync(artifacts, { recursive: true, force: true });
  mkdirSync(artifacts, { recursive: true });

  tmp = mkdtempSync(join(tmpdir(), 'ctxls-e2e-'));
  workspace = join(tmp, 'library');
  // A copy, so the server's database and edits stay out of the repository.
  cpSync(librarySource, workspace, {
    recursive: true,
    filter: (src) => !src.split('/').includes('.ctxls') || src.endsWith('.ctxls.yaml'),
  });
  const userData = join(tmp, 'user-data');
  const extensions = join(tmp, 'extensions');
  mkdirSync(join(userData, 'User'), { recursive: true });
  mkdirSync(join(userData, 'Machine'), { recursive: true });
  // code-server applies machine-scoped settings (ctxls.serverPath) from the
  // Machine settings only.
  writeFileSync(
    join(userData, 'Machine', 'settings.json'),
    JSON.stringify(serverPathSetting ? { 'ctxls.serverPath': serverPathSetting } : {}, null, 2),
  );
  writeFileSync(
    join(userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        'security.workspace.trust.enabled': false,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'chat.disableAIFeatures': true,
        'extensions.autoUpdate': false,
        'extensions.autoCheckUpdates': false,
        'extensions.ignoreRecommendations': true,
        'update.mode': 'none',
        'telemetry.telemetryLevel': 'off',
        'window.commandCenter': false,
        'editor.minimap.enabled': false,
        'editor.hover.delay': 200,
        'editor.quickSuggestions': { other: true, comments: true, strings: true },
        'files.autoSave': 'off',
        'git.enabled': false,
        // Only the language server's items in the completion widget.
        'editor.wordBasedSuggestions': 'off',
      },
      null,
      2,
    ),
  );

  const install = spawnSync(
    codeServer,
    ['--extensions-dir', extensions, '--user-data-dir', userData, '--install-extension', vsix],
    { env: codeServerEnv(), encoding: 'utf8', timeout: 180_000 },
  );
  writeFileSync(join(artifacts, 'install-extension.log'), `${install.stdout}\n${install.stderr}`);
  assert.equal(install.status, 0, `installing the vsix failed:\n${install.stdout}\n${install.stderr}`);
  assert.match(install.stdout + install.stderr, /successfully installed/i);

  const port = await freePort();
  const log = createWriteStream(join(artifacts, 'code-server.log'));
  serverProc = spawn(
    codeServer,
    [
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--extensions-dir', extensions,
      '--user-data-dir', userData,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      workspace,
    ],
    { env: codeServerEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  serverProc.stdout.pipe(log);
  serverProc.stderr.pipe(log);
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, 120_000);

  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(WAIT);
  page.on('console', (m) => browserLog.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => browserLog.push(`[pageerror] ${e.message}`));
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`, { timeout: 120_000 });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 120_000 });
  // The explorer shows the workspace once the file service is up.
  await page
    .locator('.explorer-folders-view .monaco-list-row', { hasText: 'commands' })
    .first()
    .waitFor({ state: 'visible', timeout: 120_000 });
  await screenshot('workbench');
}, { timeout: 600_000 });

after(async () => {
  try {
    if (browserLog.length > 0) {
      writeFileSync(join(artifacts, 'browser-console.log'), browserLog.join('\n') + '\n');
    }
    await browser?.close().catch(() => undefined);
  } finally {
    if (serverProc && serverProc.exitCode === null) {
      const exited = new Promise((r) => serverProc.once('exit', r));
      try {
        process.kill(-serverProc.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-serverProc.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 10_000);
      await exited;
      clearTimeout(timer);
    }
    if (tmp) {
      // Keep the extension host logs (they hold the ctxls output channel).
      const logs = join(tmp, 'user-data', 'logs');
      if (existsSync(logs)) {
        cpSync(logs, join(artifacts, 'vscode-logs'), { recursive: true });
      }
      rmSync(tmp, { recursive: true, force: true });
    }
  }
});

step('opens a command and completes a topic with its token cost', 'completion', async () => {
  // Click the file in the explorer, as a person would.
  const commandsRow = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'commands' }).first();
  const fileRow = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'implement.md' }).first();
  if (!(await fileRow.isVisible())) {
    await commandsRow.click();
  }
  await fileRow.waitFor({ state: 'visible', timeout: WAIT });
  await fileRow.click();
  await page.locator('.tabs-container .tab', { hasText: 'implement.md' }).first().waitFor({ state: 'visible' });
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.locator('.view-lines').waitFor({ state: 'visible' });
  await editor.locator('.view-lines').click();

  // A fresh line at the end of the file, then the key form prefix.
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  const suggest = page.locator('.editor-widget.suggest-widget');
  // The server may still be indexing; retry the trigger until items arrive.
  await eventually(
    async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Home');
      await page.keyboard.press('Shift+End');
      await page.keyboard.type('python:', { delay: 40 });
      await page.keyboard.press('Control+Space');
      await suggest.locator('.monaco-list-row').first().waitFor({ state: 'visible', timeout: 10_000 });
      return true;
    },
    WAIT * 2,
    'the completion widget',
  );
  const rows = await suggest.locator('.monaco-list-row').allInnerTexts();
  assert.ok(
    rows.some((r) => /fastapi_patterns/.test(r)) && rows.some((r) => /common_issues/.test(r)),
    `completion lists python topics: ${JSON.stringify(rows.slice(0, 8))}`,
  );
  // The item's detail (title and token cost) is in the details pane, which
  // Ctrl+Space toggles; the workbench remembers the choice.
  const details = page.locator('.suggest-details');
  const detail = await eventually(
    async () => {
      if (!(await details.isVisible())) {
        await page.keyboard.press('Control+Space');
        await page.waitForTimeout(500);
      }
      const t = await details.innerText();
      return /\d[\d,]* tok/.test(t) ? t : undefined;
    },
    WAIT,
    'the details of a completion item with its token cost',
  );
  updateMedia(await screenshot('completion'), 'screenshot-completion.png');
  assert.match(detail, /\d[\d,]* tok/, 'the focused item shows its token cost');
  await page.keyboard.press('Escape');
  // Leave the document as it was.
  await page.keyboard.press('Control+Shift+K');
  await page.keyboard.press('Control+Shift+K');
  await page.keyboard.press('Control+S');
});

step('the status bar shows the reference cost of the command file and opens a breakdown', 'status-bar', async () => {
  const item = page.locator('.statusbar-item', { hasText: /[\d,]+ tok \([\w.-]+\) · \d+ refs?/ }).first();
  await eventually(() => item.isVisible(), WAIT * 2, 'the token cost in the status bar');
  const text = await item.innerText();
  await item.click();
  const widget = page.locator('.quick-input-widget');
  await eventually(
    async () => /Token cost of commands\/implement\.md/.test(await widget.innerText()),
    WAIT,
    'the token cost breakdown',
  );
  const list = widget.locator('.quick-input-list .monaco-list-row');
  const rows = await list.allInnerTexts();
  await screenshot('cost-breakdown');
  assert.ok(rows.some((r) => /python:fastapi_patterns/.test(r) && /[\d,]+ tok/.test(r)), `breakdown rows: ${JSON.stringify(rows.slice(0, 6))}`);
  // The list is virtual: narrow it to see the unresolved reference.
  await widget.locator('.quick-input-box input').fill('python:fastapi');
  const filtered = await eventually(
    async () => {
      const all = await list.allInnerTexts();
      return all.some((r) => /unresolved/.test(r)) ? all : undefined;
    },
    WAIT,
    'the unresolved python:fastapi in the breakdown',
  );
  assert.ok(filtered.some((r) => /python:fastapi(?!_)/.test(r) && /unresolved/.test(r)), `filtered rows: ${JSON.stringify(filtered)}`);
  assert.match(text, /unresolved/, 'the status bar counts unresolved references');
  await page.keyboard.press('Escape');
  // Keep the status bar's tooltip out of the next steps.
  await page.mouse.move(700, 300);
});

step('hover on a reference shows its tokens', 'hover', async () => {
  const file = join(workspace, 'commands', 'implement.md');
  const { line, column } = positionOf(file, 'python:common_issues', 9);
  await goTo(line, column);
  const hover = page.locator('.monaco-editor .monaco-hover:not(.hidden)', { hasText: 'python:common_issues' }).first();
  await eventually(
    async () => {
      await runCommand('Show or Focus Hover');
      await hover.waitFor({ state: 'visible', timeout: 8_000 });
      return true;
    },
    WAIT * 2,
    'a hover with tokens',
  );
  const text = await hover.innerText();
  await screenshot('hover');
  assert.match(text, /Common Python Issues/, 'hover names the topic');
  assert.match(text, /\d[\d,]* tok measured/, 'hover shows the measured tokens');
  assert.match(text, /Exception Handling\s+\d+/, 'hover lists sections with their tokens');
  await page.keyboard.press('Escape');
});

step('the Problems panel shows a ctxls diagnostic', 'problems', async () => {
  await runCommand('Problems: Focus on Problems View');
  const rows = page.locator('.markers-panel .monaco-list-row');
  const text = await eventually(
    async () => {
      const all = (await rows.allInnerTexts()).join('\n');
      return /no topic "fastapi"/.test(all) ? all : undefined;
    },
    WAIT * 2,
    'the unresolved python:fastapi diagnostic',
  );
  await screenshot('problems');
  assert.match(text, /domain python has no topic "fastapi"; did you mean 'fastapi_patterns'\?/);
  assert.match(text, /unresolved-reference/);
  // Give the editor area back to the next steps.
  await page.keyboard.press('Control+J');
  await page.locator('.part.panel').waitFor({ state: 'hidden', timeout: WAIT });
});

step('CLAUDE.md shows its import tree cost and the Session Cost view lists what loads at start', 'agent-files', async () => {
  await openFile('CLAUDE.md');
  const lens = page.locator('.editor-instance .monaco-editor .codelens-decoration', { hasText: 'Memory:' }).first();
  const label = await eventually(
    async () => ((await lens.count()) > 0 ? lens.innerText() : undefined),
    WAIT * 2,
    'the memory code lens on CLAUDE.md',
  );
  await screenshot('agent-files-lens');
  // Two imports load; the third is followed by a colon, so the agent skips
  // it. The figures name their tokenizer.
  assert.match(label, /Memory: [\d,]+ tok · with 2 imports [\d,]+ tok \([\w.-]+\) · 1 not loaded/, `code lens: ${label}`);

  await runCommand('Focus on Session Cost View');
  const view = page.locator('.sidebar .pane', { hasText: 'Session Cost' }).first();
  await view.waitFor({ state: 'visible', timeout: WAIT });
  const rows = await eventually(
    async () => {
      const all = (await view.locator('.monaco-list-row').allInnerTexts()).join('\n');
      return /CLAUDE\.md/.test(all) && /loading_protocol\.md/.test(all) ? all : undefined;
    },
    WAIT * 2,
    'CLAUDE.md and its import in the Session Cost view',
  );
  await screenshot('agent-files-session');
  assert.match(rows, /CLAUDE\.md\s*[\d,]+ tok/, `session cost rows: ${rows}`);
  assert.doesNotMatch(rows, /common_issues\.md/, 'the import the agent skips is not counted as loaded');
});

step('the session cost in the status bar follows an unsaved edit and a skill created on disk', 'session-follows', async () => {
  const item = page.locator('.statusbar-item:has(.codicon-hubot)').first();
  const tokens = (text) => Number((/([\d,]+) tok/.exec(text) ?? ['', 'NaN'])[1].replace(/,/g, ''));
  const settled = async (what) => {
    const text = await eventually(async () => ((await item.count()) > 0 && /[\d,]+ tok/.test(await item.innerText()) ? item.innerText() : undefined), WAIT * 2, what);
    return tokens(text);
  };
  const start = await settled('the session cost in the status bar');
  const changed = async (from, what) =>
    eventually(
      async () => {
        const n = tokens(await item.innerText());
        return n > from ? n : undefined;
      },
      WAIT,
      what,
    );

  // CLAUDE.md loads at start: text typed into it, not saved, costs tokens.
  await openFile('CLAUDE.md');
  await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\nEvery change ships with its tests, its documentation and a note in the changelog for the people who use it.');
  const edited = await changed(start, 'the session cost after an unsaved edit of CLAUDE.md');
  await screenshot('session-unsaved-edit');
  await runCommand('File: Revert File');
  await eventually(async () => tokens(await item.innerText()) === start, WAIT, 'the session cost back after the edit was reverted');

  // A skill is listed at start by its name and description.
  const skill = join(workspace, '.claude', 'skills', 'release-checklist');
  mkdirSync(skill, { recursive: true });
  writeFileSync(
    join(skill, 'SKILL.md'),
    '---\nname: release-checklist\ndescription: Walks through the checks a release needs before it is tagged, such as the changelog, the version numbers, migration notes and the smoke tests.\n---\n\nRun the checks in order.\n',
  );
  const created = await changed(start, 'the session cost after a skill was created on disk');
  await screenshot('session-skill-created');
  assert.ok(edited > start && created > start, `session cost ${start}, after the edit ${edited}, after the skill ${created}`);
});

step('the context browser lists domains and topics with tokens', 'context-browser', async () => {
  // Focusing the view opens the ctxls side bar whatever its state (a click
  // on the activity bar icon would close it if it were open).
  await runCommand('Focus on Context Library View');
  const view = page.locator('.sidebar .pane', { hasText: 'Context Library' }).first();
  await view.waitFor({ state: 'visible' });
  const tree = view.locator('.monaco-list-row');
  const text = await eventually(
    async () => {
      const all = (await tree.allInnerTexts()).join('\n');
      // The tree is virtual: with the Executions and Session Cost views
      // beside it, only python's first topics are rendered.
      return /python/.test(all) && /common_issues/.test(all) && /tok/.test(all) ? all : undefined;
    },
    WAIT * 2,
    'domains and topics in the Context Library view',
  );
  await screenshot('context-browser');
  assert.match(text, /common_issues\s*[\d,]+ tok/, 'topics show token costs');
  // Collapse the domains so that every one of them is rendered (the tree is virtual).
  await view.locator('.pane-header').hover();
  await view.locator('.pane-header .action-label.codicon-collapse-all').click();
  const labels = await eventually(
    async () => {
      const names = await tree.locator('.label-name').allInnerTexts();
      return names.includes('testing') ? names : undefined;
    },
    WAIT,
    'all domains after collapsing',
  );
  for (const domain of ['git', 'python', 'security', 'testing']) {
    assert.ok(labels.includes(domain), `domain ${domain} is listed: ${JSON.stringify(labels)}`);
  }
  // After the domains, the other kinds ctxls catalog lists.
  for (const group of ['Skills', 'Commands', 'Subagents', 'Rules']) {
    assert.ok(labels.includes(group), `group ${group} is listed: ${JSON.stringify(labels)}`);
  }
});

step('Preview Chain shows every step of a named chain', 'chain-preview', async () => {
  await startFeatureChain('ctxls: Preview Chain…', 'preview-pick-chain');
  await page.locator('.tabs-container .tab', { hasText: 'Chain Preview' }).first().waitFor({ state: 'visible', timeout: WAIT * 2 });
  let previewFrame;
  const body = await eventually(
    async () => {
      for (const frame of page.frames()) {
        const t = await frame.locator('body').innerText({ timeout: 1_000 }).catch(() => '');
        if (/Chain preview/.test(t) && /Step 1 of/.test(t)) {
          previewFrame = frame;
          return t;
        }
      }
      return undefined;
    },
    WAIT * 2,
    'the chain preview webview',
  );
  await screenshot('chain-preview');
  // Later steps reuse what earlier ones loaded: show the second step.
  await previewFrame.evaluate(() => document.querySelector('section[data-step="2"]')?.scrollIntoView({ block: 'start' }));
  await page.waitForTimeout(500);
  updateMedia(await screenshot('chain-preview-step2'), 'screenshot-chain-preview.png');
  assert.match(body, /Step 1 of 3: \/brainstorm/);
  assert.match(body, /Step 2 of 3: \/implement/);
  assert.match(body, /Step 3 of 3: \/test/);
  assert.match(body, /\d[\d,]* tok/);
  assert.match(body, /cache hit/, 'later steps reuse context loaded by earlier ones');
});

step('Run Chain records an execution with its steps and conversation', 'chain-run', async () => {
  await startFeatureChain('ctxls: Run Chain…');
  // The preview executor records every step's prompt without running an agent.
  const done = page.locator('.notification-toast', { hasText: /chain brainstorm → implement → test completed/ }).first();
  await done.waitFor({ state: 'visible', timeout: WAIT * 2 });
  const note = await done.innerText();
  await screenshot('chain-run');
  assert.match(note, /3 steps, [\d,]+ tok/);

  // Its conversation: one user message (the prompt) and one result per step.
  // The progress toast closes first; until it does the toasts still move.
  await page
    .locator('.notification-toast', { hasText: /\[\d+\/\d+\]/ })
    .first()
    .waitFor({ state: 'hidden', timeout: WAIT });
  await done.locator('.monaco-button', { hasText: 'Show History' }).click();
  await page.locator('.tabs-container .tab', { hasText: /^conversation-/ }).first().waitFor({ state: 'visible', timeout: WAIT });
  const doc = await eventually(
    async () => {
      // The editor renders spaces as no-break spaces.
      const t = (await page.locator('.monaco-editor .view-lines', { hasText: 'Conversation' }).first().innerText()).replace(/\u00a0/g, ' ');
      return /User — /.test(t) ? t : undefined;
    },
    WAIT,
    'the conversation document',
  );
  await screenshot('conversation');
  assert.match(doc, /3 messages · [\d,]+ tok \(o200k_base\) · commands: \/brainstorm → \/implement → \/test/);
  assert.match(doc, /1\. User — \/brainstorm · run [0-9a-f-]+ · run mode · [\d,]+ tok/);

  // The Executions view lists it as current, with its three steps. (A click
  // on the icon of the container already shown would hide the side bar.)
  const view = page.locator('.sidebar .pane', { hasText: 'Executions' }).last();
  if (!(await view.isVisible())) {
    await page.locator('.activitybar .action-item a[aria-label^="ctxls"], .activitybar .action-item[aria-label^="ctxls"]').first().click();
  }
  const rows = view.locator('.monaco-list-row');
  const current = rows.filter({ hasText: /current · completed/ }).first();
  await eventually(() => current.isVisible(), WAIT, 'the completed execution in the Executions view');
  await current.click();
  const steps = await eventually(
    async () => {
      const all = await rows.allInnerTexts();
      return all.some((r) => /3\. test/.test(r)) ? all : undefined;
    },
    WAIT,
    'the steps of the execution',
  );
  await screenshot('executions');
  for (const [i, name] of ['brainstorm', 'implement', 'test'].entries()) {
    assert.ok(
      steps.some((r) => r.includes(`${i + 1}. ${name}`) && /success/.test(r)),
      `step ${name} succeeded: ${JSON.stringify(steps)}`,
    );
  }
});

step('a changed ctxls setting reaches the server', 'settings', async () => {
  await page.locator('.tabs-container .tab', { hasText: 'implement.md' }).first().click();
  const item = page.locator('.statusbar-item', { hasText: /[\d,]+ tok \([\w.-]+\) · \d+ refs?/ }).first();
  const before = await eventually(async () => (await item.isVisible()) && (await item.innerText()), WAIT, 'the token cost in the status bar');
  // The word-count estimate gives other costs than the default BPE tokenizer.
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'ctxls.tokenizer': 'estimate' }, null, 2));
  const after = await eventually(
    async () => {
      const t = (await item.isVisible()) && (await item.innerText());
      return t && t !== before ? t : undefined;
    },
    WAIT * 2,
    `the status bar cost to change from "${before}" after setting ctxls.tokenizer`,
  );
  await screenshot('settings-estimate');
  assert.match(after, /[\d,]+ tok \(estimate\) · \d+ refs?/);
});

step('Restart Server starts a new server that answers again', 'restart', async () => {
  const starts = () => (serverLog().match(/\[ctxls\] starting .* serve/g) ?? []).length;
  const before = starts();
  await runCommand('ctxls: Restart Server');
  await eventually(() => starts() > before, WAIT, 'a second server start in the ctxls log');
  // The new server answers: Search Context lists topics with relevance and tokens.
  await runCommand('ctxls: Search Context');
  const widget = page.locator('.quick-input-widget');
  await widget.locator('.quick-input-box input').fill('fastapi dependency injection');
  const rows = await eventually(
    async () => {
      const all = await widget.locator('.quick-input-list .monaco-list-row').allInnerTexts();
      return all.some((r) => /python:fastapi_patterns/.test(r)) ? all : undefined;
    },
    WAIT,
    'search results from the restarted server',
  );
  await screenshot('search');
  assert.ok(
    rows.some((r) => /python:fastapi_patterns/.test(r) && /relevance [\d.]+%? · [\d,]+ tok/.test(r)),
    `search rows show relevance and tokens: ${JSON.stringify(rows.slice(0, 4))}`,
  );
  await page.keyboard.press('Escape');
});
