#!/bin/sh
# Creates a Python virtual environment with rumoca 0.10.2 (the peer Modelica simulator on
# diffsol), for measurement only: minimo never depends on it.
# Usage: benches/peers/setup.sh [VENV_DIR]   (default: benches/peers/.venv)
set -e
VENV="${1:-$(dirname "$0")/.venv}"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet "rumoca==0.10.2" numpy
echo "venv ready: $VENV/bin/python"
