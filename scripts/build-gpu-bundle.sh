#!/usr/bin/env bash
# Builds dist/telepath-gpu-bundle.tar.xz: everything scripts/gpu-bench.sh needs on a Linux x64
# machine with no package registry and no Node — this machine's Node binary, the runtime
# node_modules (tfjs' Node bundles, the Dawn binding's linux-x64 binary, tsx and esbuild), core's and
# the native backend's sources with the built addon, and the shared libraries they load that a bare
# machine may lack (libvulkan, OpenBLAS and its Fortran runtime; used only where the system has none).
# Run it after `bash scripts/setup.sh` (the native addon must be built). Target: < 64 MiB.
#   usage: bash scripts/build-gpu-bundle.sh [OUT.tar.xz]
# On the GPU machine: tar xJf telepath-gpu-bundle.tar.xz && telepath-gpu/scripts/gpu-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${1:-$ROOT/dist/telepath-gpu-bundle.tar.xz}
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
B=$STAGE/telepath-gpu
mkdir -p "$B/node/bin" "$B/lib" "$B/packages" "$B/scripts" "$B/node_modules/@telepath"

NODE=$(readlink -f "$(command -v node)")
cp "$NODE" "$B/node/bin/node"
[ -f packages/backend-native/build/Release/telepath_native.node ] || { echo "build-gpu-bundle: the native addon is not built (run scripts/setup.sh)"; exit 1; }

# Sources: root config, core, the native backend (sources + built addon), the scripts.
cp package.json tsconfig.base.json "$B/"
cp scripts/gpu-bench.sh "$B/scripts/"
mkdir -p "$B/packages/core" "$B/packages/backend-native/build/Release"
cp -r packages/core/package.json packages/core/tsconfig.json packages/core/src packages/core/bench packages/core/bin "$B/packages/core/"
cp -r packages/backend-native/package.json packages/backend-native/tsconfig.json packages/backend-native/src "$B/packages/backend-native/"
cp packages/backend-native/build/Release/telepath_native.node "$B/packages/backend-native/build/Release/"
find "$B/packages" -name '*.test.ts' -delete
ln -s ../../packages/core "$B/node_modules/@telepath/core"
ln -s ../../packages/backend-native "$B/node_modules/@telepath/backend-native"

# node_modules: the dependency closure of what the bench imports at run time.
"$NODE" - "$ROOT" "$B" <<'EOF'
const fs = require('node:fs');
const path = require('node:path');
const [root, out] = process.argv.slice(2);
const roots = ['@tensorflow/tfjs', '@tensorflow/tfjs-core', '@tensorflow/tfjs-backend-cpu', '@tensorflow/tfjs-backend-wasm',
  '@tensorflow/tfjs-backend-webgpu', 'webgpu', 'tsx', '@esbuild/linux-x64', 'node-addon-api'];
const seen = new Set();
const queue = roots.map((name) => ({ name, from: root }));
// tfjs packages: only package.json, the Node bundle (`main`) and wasm binaries; the rest of dist is for browsers.
const mainOnly = (name) => name.startsWith('@tensorflow/');
const skipFile = (rel) => rel.endsWith('.map') || rel.endsWith('.d.ts') || rel.endsWith('.md') || /(^|\/)(test|tests|docs)\//.test(rel);
function locate(name, from) {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const p = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(p, 'package.json'))) return p;
    if (dir === root || dir === path.dirname(dir)) return null;
  }
}
function copy(src, dst) {
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  fs.copyFileSync(src, dst);
}
function walk(dir, rel = '') {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(dir, r);
    return e.isFile() ? [r] : [];
  });
}
while (queue.length) {
  const { name, from } = queue.shift();
  // Types, macOS-only and browser-only packages (tfjs' Node bundles require none of core-js'
  // polyfills); esbuild's bin/esbuild duplicates @esbuild/linux-x64's binary, which is what runs.
  if (name.startsWith('@types/') || ['fsevents', 'core-js', 'regenerator-runtime'].includes(name)) continue;
  const dir = locate(name, from);
  if (!dir) { if (roots.includes(name)) throw new Error(`not installed: ${name}`); continue; }
  if (seen.has(dir)) continue;
  seen.add(dir);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const dst = path.join(out, path.relative(root, dir));
  let files;
  if (mainOnly(name)) files = ['package.json', pkg.main, ...walk(dir).filter((f) => f.endsWith('.wasm') && f.startsWith('dist/') && !f.includes('/', 5))];
  else if (name === 'webgpu') files = ['package.json', 'index.js', ...walk(dir, 'dist/linux-x64')];
  else files = walk(dir).filter((f) => !skipFile(f) && !(name === 'esbuild' && f === 'bin/esbuild'));
  for (const f of files) copy(path.join(dir, f), path.join(dst, f));
  for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) queue.push({ name: dep, from: dir });
}
console.error(`build-gpu-bundle: ${seen.size} packages`);
EOF

# Shared libraries a bare machine may lack (gpu-bench.sh puts them on the path only when missing).
for lib in libvulkan.so.1 libopenblas.so.0 libgfortran.so.5 libquadmath.so.0; do
  p=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ { print $NF; exit }')
  [ -n "$p" ] && cp -L "$p" "$B/lib/$lib" || echo "build-gpu-bundle: $lib not found here; not bundled"
done

mkdir -p "$(dirname "$OUT")"
tar -C "$STAGE" -cf - telepath-gpu | xz -T0 -6 > "$OUT"
echo "build-gpu-bundle: $OUT — $(du -m "$OUT" | cut -f1) MiB compressed, $(du -sm "$B" | cut -f1) MiB unpacked"
