#!/usr/bin/env bash
# The playground's end-to-end test in headless Chromium (after web/build.sh): types models in
# the page, checks the plot and the located diagnostics against the command line's.
set -euo pipefail
cd "$(dirname "$0")"
node --test tests/
