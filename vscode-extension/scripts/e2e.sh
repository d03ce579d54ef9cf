#!/usr/bin/env bash
# End-to-end test: packages the extension with its server, installs it into
# code-server and drives the workbench in Debian's chromium.
#
#   CTXLS_E2E_CACHE          install cache (default $HOME/.cache/ctxls-e2e)
#   CTXLS_E2E_SKIP_PACKAGE=1 reuse an existing ctxls.vsix
#   CTXLS_E2E_VSIX           install this .vsix (a release's, say) instead of
#                            packaging one
#   CTXLS_E2E_WORKSPACE      library to open (default examples/library)
#   CTXLS_E2E_SERVER_PATH    server binary to use instead of the bundled one
# Screenshots and logs go to vscode-extension/test-artifacts/.
set -euo pipefail
EXT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO_ROOT="$(cd "$EXT_DIR/.." && pwd)"
CACHE="${CTXLS_E2E_CACHE:-$HOME/.cache/ctxls-e2e}"
export CTXLS_E2E_CACHE="$CACHE"

bash "$EXT_DIR/scripts/install-e2e.sh"
# shellcheck disable=SC1091
source "$CACHE/env.sh"

if [ -n "${CTXLS_E2E_VSIX:-}" ]; then
  [ -f "$CTXLS_E2E_VSIX" ] || { echo "e2e: CTXLS_E2E_VSIX=$CTXLS_E2E_VSIX is not a file" >&2; exit 1; }
  CTXLS_E2E_VSIX="$(cd "$(dirname "$CTXLS_E2E_VSIX")" && pwd)/$(basename "$CTXLS_E2E_VSIX")"
else
  if [ "${CTXLS_E2E_SKIP_PACKAGE:-0}" != 1 ] || [ ! -f "$EXT_DIR/ctxls.vsix" ]; then
    (cd "$REPO_ROOT" && npm run package)
  fi
  CTXLS_E2E_VSIX="$EXT_DIR/ctxls.vsix"
fi

export CTXLS_E2E_VSIX
export CTXLS_E2E_ARTIFACTS="$EXT_DIR/test-artifacts"
cd "$EXT_DIR"
exec node --test --test-concurrency=1 test/e2e/workbench.test.mjs
