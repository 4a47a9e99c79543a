#!/usr/bin/env bash
# GPU check: can earshot run its ONNX speech models (Whisper, Moonshine, Kokoro) on CUDA on this machine?
#
#   scripts/gpu-check.sh            # checks, then each model on cuda and on cpu; exit 0 only if CUDA ran
#   scripts/gpu-check.sh --force    # run the models even when a check fails (to see ONNX Runtime's own error)
#
# Checks the NVIDIA driver (nvidia-smi), onnxruntime-node's CUDA provider library and the CUDA/cuDNN libraries it
# loads, and stops at once, naming each one missing (docs/guide/audio.md, "GPU check", says what to install).
# Then builds the full-size fixtures of whisper-tiny.en, moonshine-tiny and kokoro into a temporary folder (seeded
# random weights: compute, not accuracy), loads each with device cuda and cpu, and prints which execution provider
# the nodes were placed on and the real-time factor of each. No network.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

force=0
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    -h | --help)
      sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "gpu-check: unknown argument '$arg' (known: --force, --help)" >&2
      exit 2
      ;;
  esac
done

missing=()
if ! command -v nvidia-smi >/dev/null 2>&1; then
  missing+=("nvidia-smi is not on PATH: no NVIDIA driver is installed")
elif ! gpus=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1); then
  missing+=("nvidia-smi fails (driver not loaded, or no GPU visible): ${gpus%%$'\n'*}")
else
  echo "GPU: ${gpus//$'\n'/; }"
fi

# onnxruntime-node's CUDA provider and the libraries it needs (ldd when the provider is there).
if ! report=$(npx --no-install tsx scripts/gpu-check.ts --preflight 2>&1); then
  if ! grep -q '^missing: ' <<<"$report"; then
    echo "gpu-check: the preflight failed: ${report##*$'\n'}" >&2
    exit 2
  fi
fi
while IFS= read -r line; do
  [[ "$line" == missing:\ * ]] && missing+=("${line#missing: }")
done <<<"$report"

if ((${#missing[@]})); then
  echo "gpu-check: CUDA cannot be used on this machine; missing:" >&2
  for m in "${missing[@]}"; do echo "  - $m" >&2; done
  echo "What to install: docs/guide/audio.md, section \"GPU check\". earshot's models still run on the CPU." >&2
  ((force)) || exit 1
  echo "gpu-check: --force: running the models anyway" >&2
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/earshot-gpu-check.XXXXXX")
trap 'rm -rf "$dir"' EXIT
started=$SECONDS
npx --no-install tsx scripts/model-fixtures.ts --out "$dir" --full --models whisper-tiny.en,moonshine-tiny,kokoro
echo "fixtures built in $((SECONDS - started)) s"
npx --no-install tsx scripts/gpu-check.ts --models-dir "$dir"
