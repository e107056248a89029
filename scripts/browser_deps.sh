#!/usr/bin/env bash
# Installs what tests/browser needs: Debian's chromium (apt, when root) and node + playwright-core (`npm ci` in
# tests/browser, redone only when its package-lock.json changes). Never fails the caller: whatever cannot be
# installed here is reported, and the browser tests fail under CI=true (skip otherwise) saying what is missing.
# Set RLWORKBENCH_SKIP_BROWSER_DEPS=1 to do nothing.
set -uo pipefail
cd "$(dirname "$0")/.."

[ "${RLWORKBENCH_SKIP_BROWSER_DEPS:-0}" = 1 ] && exit 0
warn() { echo "browser_deps: $*" >&2; }
can_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then apt-get update -qq || return 1; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! command -v chromium >/dev/null 2>&1 && [ -z "${RLWORKBENCH_CHROMIUM:-}" ]; then
  if can_apt; then
    echo "browser_deps: installing chromium (apt)"
    apt_install chromium || warn "apt-get install chromium failed"
  else
    warn "chromium is missing; install it as root (apt-get install chromium) or set RLWORKBENCH_CHROMIUM"
  fi
fi

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  if can_apt; then
    echo "browser_deps: installing nodejs and npm (apt)"
    apt_install nodejs npm || warn "apt-get install nodejs npm failed"
  else
    warn "node/npm are missing; install Node.js >= 20"
  fi
fi
if ! command -v npm >/dev/null 2>&1; then exit 0; fi
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  warn "node $(node --version 2>/dev/null) is too old for playwright-core (needs >= 20)"
  exit 0
fi

stamp="tests/browser/node_modules/.installed-$(sha1sum tests/browser/package-lock.json | cut -c1-12)"
if [ ! -f "$stamp" ] || [ ! -f tests/browser/node_modules/playwright-core/package.json ]; then
  echo "browser_deps: npm ci in tests/browser"
  if (cd tests/browser && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error); then
    touch "$stamp"
  else
    warn "npm ci in tests/browser failed"
  fi
fi
exit 0
