#!/usr/bin/env node
// Runs the ctxls binary of this platform. npm installs it from the one
// optional dependency of the ctxls package whose os and cpu match, as it
// does for esbuild and biome: nothing is downloaded at install time and no
// install script runs.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');

// process.platform and process.arch → the package holding the binary.
const PACKAGES = {
  'linux x64': '@ctxls/linux-x64',
  'linux arm64': '@ctxls/linux-arm64',
  'darwin x64': '@ctxls/darwin-x64',
  'darwin arm64': '@ctxls/darwin-arm64',
  'win32 x64': '@ctxls/win32-x64',
  'win32 arm64': '@ctxls/win32-arm64',
};

function fail(message) {
  process.stderr.write(`ctxls: ${message}\n`);
  process.exit(2);
}

// binaryPath is CTXLS_BINARY_PATH when set, else the binary of the
// platform package.
function binaryPath() {
  if (process.env.CTXLS_BINARY_PATH) {
    return process.env.CTXLS_BINARY_PATH;
  }
  const key = `${process.platform} ${process.arch}`;
  const pkg = PACKAGES[key];
  if (!pkg) {
    fail(`no ctxls binary is published for ${process.platform}-${process.arch}; ` +
      `build one from source (go install ./cmd/ctxls in a clone) and set CTXLS_BINARY_PATH to it`);
  }
  const exe = process.platform === 'win32' ? 'ctxls.exe' : 'ctxls';
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    fail(`${pkg}, which holds the binary for this platform, is not installed. ` +
      `npm leaves optional dependencies out with --omit=optional or --no-optional; ` +
      `install again without it (npm install ctxls)`);
  }
}

const bin = binaryPath();
// A package manager that unpacks without modes loses the executable bit.
if (process.platform !== 'win32') {
  try {
    fs.accessSync(bin, fs.constants.X_OK);
  } catch {
    try {
      fs.chmodSync(bin, 0o755);
    } catch {
      // spawn reports the failure below.
    }
  }
}

const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', windowsHide: true });
child.on('error', (err) => fail(`cannot run ${bin}: ${err.message}`));
// A signal meant for ctxls (SIGTERM from an editor stopping its server,
// SIGINT from Ctrl-C) reaches it, and this process waits for it to end.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(sig);
    }
  });
}
child.on('exit', (code, signal) => {
  if (signal) {
    // Die of the same signal, so that the caller sees what ctxls saw.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
