#!/usr/bin/env bash
# Builds the playground into web/dist: minimo compiled to WebAssembly, its JavaScript glue,
# the page and the plotting library. Needs the tools web/install-tools.sh installs.
# Serve it with: python3 -m http.server -d web/dist
set -euo pipefail
cd "$(dirname "$0")"
BINDGEN_VERSION=0.2.130 # the version web/Cargo.toml pins for the wasm-bindgen crate

if ! have=$(wasm-bindgen --version 2>/dev/null) || [ "$have" != "wasm-bindgen $BINDGEN_VERSION" ]; then
  echo "error: web/build.sh needs wasm-bindgen $BINDGEN_VERSION (found: ${have:-none});" \
       "run web/install-tools.sh" >&2
  exit 1
fi
if [ ! -f node_modules/uplot/dist/uPlot.iife.min.js ]; then
  npm ci --no-audit --no-fund
fi

# The main crate's target folder: the same dependencies, built once. Not --locked: a dependency
# added to the main crate is added to web/Cargo.lock here (the versions already locked stay).
cargo build --release --target wasm32-unknown-unknown --target-dir ../target
rm -rf dist
mkdir -p dist
wasm-bindgen --target web --no-typescript --out-dir dist/pkg \
  ../target/wasm32-unknown-unknown/release/minimo_playground.wasm
cp static/index.html static/app.js static/style.css dist/
cp node_modules/uplot/dist/uPlot.iife.min.js node_modules/uplot/dist/uPlot.min.css dist/
echo "built web/dist ($(du -sh dist/pkg/minimo_playground_bg.wasm | cut -f1) of WebAssembly)"
