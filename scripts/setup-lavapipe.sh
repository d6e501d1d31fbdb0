#!/usr/bin/env bash
# Unpacks lavapipe (Mesa's software Vulkan driver) from bookworm-backports into .cache/lavapipe and
# writes .cache/lavapipe/lvp_icd.json with an absolute library_path. The core tests point
# VK_DRIVER_FILES at it to run the webgpu backend on the CPU. Nothing is installed system-wide:
# the package is downloaded and unpacked, so another Mesa on the machine is untouched.
# Debian 12 only (Mesa 22's lavapipe is rejected by Dawn); elsewhere it says why and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=.cache/lavapipe
ICD="$DEST/lvp_icd.json"
if [ -f "$ICD" ]; then echo "setup-lavapipe: $ICD exists"; exit 0; fi
command -v apt-get >/dev/null || { echo "setup-lavapipe: no apt-get"; exit 1; }
. /etc/os-release
[ "${VERSION_CODENAME:-}" = bookworm ] || { echo "setup-lavapipe: needs Debian 12 (bookworm), this is ${PRETTY_NAME:-unknown}"; exit 1; }
if ! apt-cache policy mesa-vulkan-drivers 2>/dev/null | grep -q bookworm-backports; then
  [ "$(id -u)" = 0 ] || { echo "setup-lavapipe: bookworm-backports is not an apt source; as root: echo 'deb http://deb.debian.org/debian bookworm-backports main' > /etc/apt/sources.list.d/bookworm-backports.list && apt-get update"; exit 1; }
  echo 'deb http://deb.debian.org/debian bookworm-backports main' > /etc/apt/sources.list.d/bookworm-backports.list
  apt-get update -qq
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -qq mesa-vulkan-drivers/bookworm-backports 2>/dev/null)
dpkg-deb -x "$tmp"/mesa-vulkan-drivers_*.deb "$tmp/root"
# Its shared-library dependencies (libLLVM-15, libdrm, xcb, …) come from bookworm itself.
deps=$(dpkg-deb -f "$tmp"/mesa-vulkan-drivers_*.deb Depends | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/ //g' | grep -v '^$')
missing=()
for p in $deps; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || { echo "setup-lavapipe: missing ${missing[*]}; install them with apt-get"; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
mkdir -p "$DEST"
cp "$tmp/root/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so" "$DEST/" 2>/dev/null || cp "$tmp"/root/usr/lib/*/libvulkan_lvp.so "$DEST/"
lib="$(cd "$DEST" && pwd)/libvulkan_lvp.so"
api=$(sed -n 's/.*"api_version": *"\([^"]*\)".*/\1/p' "$tmp/root/usr/share/vulkan/icd.d/lvp_icd.json")
printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "%s"}}\n' "$lib" "${api:-1.3.0}" > "$ICD"
echo "setup-lavapipe: $(dpkg-deb -f "$tmp"/mesa-vulkan-drivers_*.deb Version) → $ICD"
