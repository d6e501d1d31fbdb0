#!/usr/bin/env bash
# Copies finished runs into docs/results/records/, without their checkpoints, so the numbers of
# docs/results/ can be read back on a fresh clone:
#   npm run telepath -- run experiments/<experiment>.json --arms A,B --runs docs/results/records --json
# A finished run is a directory <runs>/<experiment>/<arm>/s<seed> with a summary.json. What is
# copied is its record (summary, config, model config, tokenizer, metrics, samples, environment):
# enough to read the run back, rebuild its report and pair it with another arm on the same
# questions; not enough to evaluate it again or start a latent arm from it (those need final.ckpt).
# A run kept again keeps the weights and latents kept with it before (same summary), with or
# without the flags below.
# --weights also keeps final.ckpt, the weights the run ended with (no optimiser state; about 3 MB
# for the 0.8 M-parameter models): copied back into a runs folder (cp -r docs/results/records/X
# runs/), such a run starts later arms (initFrom, reuse) on a fresh clone without training it again.
# A latent arm's latents.bin (what `telepath analyze` reads; up to 17 MB for N_L 16) is kept only
# with --latents, as are the round-0 states (states.bin) of a thought-comm agents experiment, an
# experiment without arms whose seeds are <runs>/<experiment>/s<seed> (name no arm to keep it).
#
# Usage: scripts/keep-records.sh [--weights] [--latents] <runs-dir> <experiment> [arm ...]   (no arm: every finished one)
# KEEP_RECORDS_TO=<dir> keeps them there instead of docs/results/records.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then usage; exit 0; fi
weights=false
latents=false
while [ "${1:-}" = --weights ] || [ "${1:-}" = --latents ]; do
  if [ "$1" = --weights ]; then weights=true; else latents=true; fi
  shift
done
if [ $# -lt 2 ]; then usage >&2; exit 2; fi
runs=$(realpath -m "$1")
records=$(realpath -m "${KEEP_RECORDS_TO:-$repo/docs/results/records}")
experiment=$2
shift 2
source_dir="$runs/$experiment"
[ -d "$source_dir" ] || { echo "keep-records: no runs of $experiment in $runs (expected $source_dir)" >&2; exit 2; }
arms=("$@")
if [ ${#arms[@]} -eq 0 ] && compgen -G "$source_dir/s*/summary.json" >/dev/null; then
  arms=(.) # an experiment without arms: its seeds are its own folders
elif [ ${#arms[@]} -eq 0 ]; then
  mapfile -t arms < <(find "$source_dir" -mindepth 1 -maxdepth 1 -type d ! -name report -printf '%f\n' | sort)
fi

kept=0
for arm in "${arms[@]}"; do
  [ -d "$source_dir/$arm" ] || { echo "keep-records: $experiment has no arm $arm in $runs" >&2; exit 2; }
  for run in "$source_dir/$arm"/s*; do
    [[ -d "$run" && "$run" != *.retrain ]] || continue
    if [ ! -f "$run/summary.json" ]; then
      echo "keep-records: $run is not finished (no summary.json); skipped" >&2
      continue
    fi
    target=$(realpath -m "$records/$experiment/$arm/$(basename "$run")")
    staging="$target.partial"
    rm -rf "$staging"
    mkdir -p "$staging"
    find "$run" -maxdepth 1 -type f ! -name '*.ckpt' ! -name '*.lock' ! -name '*.tmp*' ! -name latents.bin ! -name states.bin -exec cp -p {} "$staging/" \;
    if $latents; then for f in latents.bin states.bin; do [ -f "$run/$f" ] && cp -p "$run/$f" "$staging/"; done; fi
    if $weights; then
      [ -f "$run/final.ckpt" ] || { rm -rf "$staging"; echo "keep-records: $run has no final.ckpt to keep (--weights)" >&2; exit 2; }
      cp -p "$run/final.ckpt" "$staging/"
    fi
    # Kept again without --weights / --latents: the same run's weights and latents kept before stay
    # (a run kept again is the same run when its summary is the same); another run's are dropped.
    carried=""
    for f in final.ckpt latents.bin states.bin; do
      [ -f "$target/$f" ] && [ ! -f "$staging/$f" ] || continue
      if cmp -s "$target/summary.json" "$staging/summary.json"; then
        cp -p "$target/$f" "$staging/"
        carried="$carried $f"
      else
        echo "keep-records: $target held $f of another run (its summary differs); not kept" >&2
      fi
    done
    rm -rf "$target"
    mv "$staging" "$target"
    echo "kept $target ($(du -sh "$target" | cut -f1))${carried:+; kept from before:$carried}"
    kept=$((kept + 1))
  done
done
[ "$kept" -gt 0 ] || { echo "keep-records: no finished run of $experiment to keep" >&2; exit 2; }
# telepath run reads this folder back and refuses to train into it (run-experiment.ts).
marker="$records/.telepath-kept-records"
[ -f "$marker" ] || echo "Kept run records (scripts/keep-records.sh): telepath run reads them back and never trains here." >"$marker"
