#!/usr/bin/env bash
# Installs what web/build.sh and web/test.sh need, where it is missing: the wasm32 target,
# wasm-bindgen's command line at the crate's version, Debian's Chromium and the npm packages.
set -euo pipefail
cd "$(dirname "$0")"
BINDGEN_VERSION=0.2.130

# The machine images ship the target; rustup would have to download it otherwise.
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $BINDGEN_VERSION" ]; then
  # Not --locked: the lock file shipped with 0.2.130 names a webpki-roots release the registry
  # no longer serves; the version of the tool itself is pinned.
  cargo install wasm-bindgen-cli --version "$BINDGEN_VERSION"
fi
if [ ! -x /usr/bin/chromium ]; then
  apt-get update
  apt-get install -y chromium
fi
npm ci --no-audit --no-fund
