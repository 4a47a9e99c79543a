#!/usr/bin/env bash
# The README's first command: install what this machine lacks (Debian speech packages
# and what the README's second command, `npm test`, needs, when absent; npm packages),
# then run the main job — a real audio eval of the bundled scenarios against the bundled
# reference bot, offline. Arguments go to `earshot demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
exec node dist/cli/main.js demo "$@"
