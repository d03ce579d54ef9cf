// Builds the extension and packages it with @vscode/vsce.
//
//   node scripts/package.mjs
//       builds the linux-x64 server with go and writes ctxls.vsix, for any
//       platform (elsewhere the extension uses ctxls from PATH)
//   node scripts/package.mjs --target linux-x64 --server BIN --out FILE [--no-build]
//       packages BIN as the server of one platform (vsce package --target),
//       as the release does for each; --no-build reuses dist/
//
//   CTXLS_PACKAGE_NO_SERVER=1  package without a bundled server (the
//                              extension then uses ctxls.serverPath or PATH)
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const extDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(extDir, '..');

// The targets vsce knows that a Go build of ctxls serves, with GOOS/GOARCH.
const TARGETS = {
  'linux-x64': ['linux', 'amd64'],
  'linux-arm64': ['linux', 'arm64'],
  'darwin-x64': ['darwin', 'amd64'],
  'darwin-arm64': ['darwin', 'arm64'],
  'win32-x64': ['windows', 'amd64'],
  'win32-arm64': ['windows', 'arm64'],
};

const { values: opts } = parseArgs({
  options: {
    target: { type: 'string' },
    server: { type: 'string' },
    out: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
  },
});
if (opts.target && !TARGETS[opts.target]) {
  throw new Error(`--target ${opts.target}: not one of ${Object.keys(TARGETS).join(', ')}`);
}
if (opts.server && !opts.target) {
  throw new Error('--server needs --target');
}
const out = resolve(opts.out ?? join(extDir, 'ctxls.vsix'));

function run(cmd, args, o = {}) {
  console.log(`$ ${[cmd, ...args].join(' ')}`);
  execFileSync(cmd, args, { stdio: 'inherit', ...o });
}

if (!opts['no-build']) {
  run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', extDir, '--noEmit']);
  run(process.execPath, [join(extDir, 'esbuild.mjs'), '--production'], { cwd: extDir });
}

// The package carries the repository's licence.
copyFileSync(join(repoRoot, 'LICENSE'), join(extDir, 'LICENSE'));

const serverDir = join(extDir, 'server');
rmSync(serverDir, { recursive: true, force: true });
if (process.env.CTXLS_PACKAGE_NO_SERVER !== '1') {
  const target = opts.target ?? 'linux-x64';
  const exe = target.startsWith('win32-') ? 'ctxls.exe' : 'ctxls';
  const bin = join(serverDir, target, exe);
  mkdirSync(dirname(bin), { recursive: true });
  if (opts.server) {
    copyFileSync(opts.server, bin);
  } else {
    const [goos, goarch] = TARGETS[target];
    run('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', bin, './cmd/ctxls'], {
      cwd: repoRoot,
      env: { ...process.env, GOOS: goos, GOARCH: goarch, CGO_ENABLED: '0' },
    });
  }
  chmodSync(bin, 0o755);
  console.log(`server: ${bin} (${(statSync(bin).size / 1e6).toFixed(1)} MB)`);
}

// The README's screenshots ship in the package and its relative links stay
// as they are: the extension's details page resolves them inside the
// installed extension.
rmSync(out, { force: true });
const vsce = join(dirname(require.resolve('@vscode/vsce/package.json')), 'vsce');
const args = ['package', '--no-dependencies', '--no-rewrite-relative-links', '--out', out];
if (opts.target) {
  args.push('--target', opts.target);
}
run(process.execPath, [vsce, ...args], { cwd: extDir, env: { ...process.env, VSCE_TELEMETRY: 'false' } });
console.log(`packaged: ${out}`);
