#!/usr/bin/env bash
# Install whatever is missing on a fresh Debian machine of this kind; quick when all is there.
# `scripts/setup.sh browser` also installs Debian's Chromium and ChromeDriver (for the tests).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"

step() { printf '== setup: %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
if ! cargo clippy --version >/dev/null 2>&1 || ! cargo fmt --version >/dev/null 2>&1; then
  step "rustup component add clippy rustfmt (make lint)"
  rustup component add clippy rustfmt
fi
# Versions recorded in shared/toolchain.md: trunk 0.22 needs a newer rustc; wasm-bindgen-cli must
# equal the crate's exact version, and its own lockfile wants a crate the registry lacks.
if ! trunk --version 2>/dev/null | grep -q ' 0\.21\.14'; then
  step "cargo install trunk 0.21.14 (about 6 minutes)"
  cargo install trunk --version =0.21.14 --locked
fi
if ! wasm-bindgen --version 2>/dev/null | grep -q ' 0\.2\.130'; then
  step "cargo install wasm-bindgen-cli 0.2.130 (about 2 minutes)"
  cargo install wasm-bindgen-cli --version =0.2.130 --force
fi
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ]; then
  step "npm ci (binaryen's wasm-opt 132, playwright-core, axe-core)"
  npm ci --no-audit --no-fund
fi
if [ "${1:-}" = browser ] && { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; }; then
  step "apt-get install chromium chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends chromium chromium-driver
fi
