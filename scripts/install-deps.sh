#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks for earshot, and nothing else.
#   scripts/install-deps.sh          speech packages the demo needs (PocketSphinx)
#   scripts/install-deps.sh --test   plus what the test suite needs (LibriVox test clips, sctk, Chromium)
# npm packages are installed with ONNXRUNTIME_NODE_INSTALL_CUDA=skip: onnxruntime-node's
# postinstall otherwise downloads CUDA libraries, which fails on machines with no route
# to GitHub (CPU inference needs none of them).
set -euo pipefail

packages=(pocketsphinx pocketsphinx-en-us)
if [[ "${1:-}" == "--test" ]]; then
  packages+=(pocketsphinx-testdata sctk chromium libxml2-utils sox python3-yaml)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "earshot: installing Debian packages: ${missing[*]}"
  if [[ $(id -u) -eq 0 ]]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "earshot: not root and no passwordless sudo; run this, then try again:" >&2
    echo "  sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "earshot: installing npm packages (npm ci)"
  ONNXRUNTIME_NODE_INSTALL_CUDA=skip npm ci --no-audit --no-fund
else
  # npm ci builds through `prepare`; an existing checkout may hold a stale build.
  npm run --silent build
fi
