// Builds the extension, the linux-x64 server binary, and packages both into
// ctxls.vsix with @vscode/vsce.
//
//   CTXLS_PACKAGE_NO_SERVER=1  package without a bundled server (the
//                              extension then uses ctxls.serverPath or PATH)
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const extDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(extDir, '..');
const out = join(extDir, 'ctxls.vsix');

function run(cmd, args, opts = {}) {
  console.log(`$ ${[cmd, ...args].join(' ')}`);
  execFileSync(cmd, args, { stdio: 'inherit', ...opts });
}

run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', extDir, '--noEmit']);
run(process.execPath, [join(extDir, 'esbuild.mjs'), '--production'], { cwd: extDir });

const serverDir = join(extDir, 'server');
rmSync(serverDir, { recursive: true, force: true });
if (process.env.CTXLS_PACKAGE_NO_SERVER !== '1') {
  const bin = join(serverDir, 'linux-x64', 'ctxls');
  mkdirSync(dirname(bin), { recursive: true });
  run('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', bin, './cmd/ctxls'], {
    cwd: repoRoot,
    env: { ...process.env, GOOS: 'linux', GOARCH: 'amd64', CGO_ENABLED: '0' },
  });
  chmodSync(bin, 0o755);
  console.log(`server: ${bin} (${(statSync(bin).size / 1e6).toFixed(1)} MB)`);
}

// The README's screenshots ship in the package and its relative links stay
// as they are: the extension's details page resolves them inside the
// installed extension.
rmSync(out, { force: true });
const vsce = join(dirname(require.resolve('@vscode/vsce/package.json')), 'vsce');
run(
  process.execPath,
  [
    vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license',
    '--no-rewrite-relative-links',
    '--out', out,
  ],
  { cwd: extDir, env: { ...process.env, VSCE_TELEMETRY: 'false' } },
);
console.log(`packaged: ${out}`);
