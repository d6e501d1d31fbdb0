#!/usr/bin/env bash
# Sets up a fresh clone: Debian packages (when run as root with apt-get), then `npm ci`.
#   g++, make, python3, OpenBLAS headers — node-gyp builds the native CPU backend (@telepath/backend-native)
#   DejaVu fonts       — text in the PNG charts of reports
#   Chromium           — the test that renders the HTML report in a real browser
#   Jupyter (nbconvert, client, nbclient) — runs the tslab notebooks headlessly
#   libvulkan1 + lavapipe (Mesa 25 from bookworm-backports, unpacked into .cache/lavapipe) — runs
#     the webgpu backend's tests on the CPU; Debian 12's own lavapipe (Mesa 22) is too old for Dawn
#   redis-server       — the queue tests (telepath queue / worker) start their own on 127.0.0.1
# Without them everything still runs: the native backend is skipped (wasm is used) with a
# one-line message saying how to enable it.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(g++ make python3 libopenblas-dev fonts-dejavu-core chromium jupyter-nbconvert jupyter-client python3-nbclient libvulkan1 redis-server)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages (optional, for speed and chart text): ${missing[*]}"
    echo "       install them with: sudo apt-get install -y ${missing[*]}"
  fi
fi

bash scripts/setup-lavapipe.sh || echo "setup: lavapipe not installed; the webgpu tests will say why and skip"

npm ci --no-audit --no-fund
