#!/usr/bin/env bash
# Runs the core benchmarks on an NVIDIA GPU through the webgpu backend (Dawn → Vulkan), and the
# same benchmarks on the native CPU backend of the same machine for comparison:
#   1. bench:core (the 4 × 128 reference model, batch 32 × 64 tokens) on webgpu, then native;
#   2. a GPT-2-small-shaped training step (packages/core/bench/gpt2-step.bench.ts) on webgpu, then native.
# Works from a clone (after scripts/setup.sh) or from the bundle scripts/build-gpu-bundle.sh builds
# (no registry, no Node needed). Checks first that Vulkan can reach the GPU: the loader (libvulkan1)
# and NVIDIA's ICD (nvidia_icd.json, or libGLX_nvidia.so.0, for which an ICD json is written).
# Results: runs/gpu-bench/<UTC time>/results.jsonl and a table on stdout.
#   usage: scripts/gpu-bench.sh [--software]   (--software: allow a software adapter, for a smoke run)
#   env:   BENCH_ARGS (default "--steps 10 --warmup 2"), GPT2_ARGS (default "--batch 4 --seq 256 --steps 5"), NATIVE_GPT2_ARGS (default "--batch 4 --seq 256 --steps 2 --warmup 1"),
#          STEP_TIMEOUT seconds per run (default 600)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SOFTWARE=0
[ "${1:-}" = "--software" ] && SOFTWARE=1
say() { echo "gpu-bench: $*" >&2; }

# Node: the bundle's, else the one on PATH.
if [ -x "$ROOT/node/bin/node" ]; then NODE="$ROOT/node/bin/node"; else NODE=$(command -v node || true); fi
[ -n "$NODE" ] || { say "no Node.js: install Node ≥ 20 or use the bundle (scripts/build-gpu-bundle.sh)"; exit 2; }
[ -f "$ROOT/node_modules/tsx/dist/cli.mjs" ] || { say "node_modules missing: run scripts/setup.sh, or use the bundle"; exit 2; }

# Bundled shared libraries, only for those the system lacks.
if [ -d "$ROOT/lib" ]; then
  FALLBACK=$(mktemp -d)
  for f in "$ROOT"/lib/*; do
    ldconfig -p 2>/dev/null | grep -q "^[[:space:]]*$(basename "$f") " || ln -s "$f" "$FALLBACK/"
  done
  export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$FALLBACK"
fi

# Vulkan: the loader, then a driver for the GPU.
if ! ldconfig -p 2>/dev/null | grep -q "libvulkan.so.1 " && [ ! -e "${FALLBACK:-/nonexistent}/libvulkan.so.1" ]; then
  say "no Vulkan loader (libvulkan.so.1): apt-get install libvulkan1, or use the bundle"; exit 2
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/gpu-bench: GPU: /' >&2
if [ $SOFTWARE = 1 ]; then
  say "--software: any adapter accepted (for a smoke run; numbers are not GPU numbers)"
elif [ -z "${VK_DRIVER_FILES:-}" ]; then
  ICD=""
  for f in /usr/share/vulkan/icd.d/nvidia_icd*.json /etc/vulkan/icd.d/nvidia_icd*.json; do [ -f "$f" ] && ICD=$f && break; done
  if [ -z "$ICD" ]; then
    GLX=$(ldconfig -p 2>/dev/null | awk '$1 == "libGLX_nvidia.so.0" { print $NF; exit }')
    if [ -n "$GLX" ]; then
      ICD=$(mktemp --suffix=.json)
      printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' "$GLX" > "$ICD"
      say "no nvidia_icd.json; wrote $ICD for $GLX"
    fi
  fi
  if [ -z "$ICD" ]; then
    say "no NVIDIA Vulkan driver (nvidia_icd.json or libGLX_nvidia.so.0). Install the NVIDIA driver's Vulkan part;"
    say "in a container the NVIDIA runtime mounts it only with NVIDIA_DRIVER_CAPABILITIES including 'graphics' (or 'all')."
    exit 2
  fi
  export VK_DRIVER_FILES=$ICD
  say "Vulkan driver: $ICD"
fi

OUT="$ROOT/runs/gpu-bench/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
export NODE_OPTIONS=--max-semi-space-size=64
TSX=("$NODE" "$ROOT/node_modules/tsx/dist/cli.mjs")
run() { # name backend command...
  local name=$1 backend=$2; shift 2
  say "$name on $backend …"
  local line
  if line=$(timeout "${STEP_TIMEOUT:-600}" "$@" 2> >(tee -a "$OUT/$name-$backend.log" >&2) | tail -n 1) && [ -n "$line" ]; then
    echo "{\"run\":\"$name\",\"result\":$line}" >> "$OUT/results.jsonl"
  else
    echo "{\"run\":\"$name\",\"backend\":\"$backend\",\"error\":\"failed or timed out; see $name-$backend.log\"}" >> "$OUT/results.jsonl"
  fi
}
# shellcheck disable=SC2086
{
  run bench-core webgpu "${TSX[@]}" packages/core/bench/train-step.bench.ts --child --backend webgpu --positions learned ${BENCH_ARGS:---steps 10 --warmup 2}
  run bench-core native "${TSX[@]}" packages/core/bench/train-step.bench.ts --child --backend native --positions learned ${BENCH_ARGS:---steps 10 --warmup 2}
  run gpt2-step webgpu "${TSX[@]}" packages/core/bench/gpt2-step.bench.ts --backend webgpu ${GPT2_ARGS:---batch 4 --seq 256 --steps 5}
  run gpt2-step native "${TSX[@]}" packages/core/bench/gpt2-step.bench.ts --backend native ${NATIVE_GPT2_ARGS:---batch 4 --seq 256 --steps 2 --warmup 1}
}
"$NODE" -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => JSON.parse(l));
for (const r of rows) {
  const x = r.result;
  if (!x) { console.log(`${r.run.padEnd(11)} ${r.backend.padEnd(8)} ${r.error}`); continue; }
  const adapter = x.adapter ? ` (${x.adapter.vendor} ${x.adapter.architecture} ${x.adapter.description})` : "";
  console.log(`${r.run.padEnd(11)} ${x.backend.padEnd(8)} ${String(Math.round(x.msPerStep)).padStart(7)} ms/step ${String(Math.round(x.tokensPerSec)).padStart(9)} tokens/s${adapter}`);
}' "$OUT/results.jsonl"
say "results: $OUT/results.jsonl"
