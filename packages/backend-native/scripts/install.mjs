// Builds the native addon at install time (`npm ci`, `npm rebuild @telepath/backend-native`).
// Never fails the install: if OpenBLAS, a compiler or Node's headers are missing, or the build
// breaks, it prints one line saying why and how to enable the backend, and exits 0.
// The build runs in a private temporary copy of the sources and the finished addon is renamed
// into build/Release, so concurrent installs never see (or load) a half-written binary.
// Flags: --verbose streams the compiler output. Env: TELEPATH_NATIVE_SKIP_BUILD=1 skips;
// TELEPATH_OPENBLAS_LIB_DIRS (a ':' list) replaces the directories searched for libopenblas.so;
// TELEPATH_NATIVE_LOG moves the build log (default build/install.log).
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PKG = '@telepath/backend-native';
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const HINT = `apt-get install libopenblas-dev g++ make python3 && npm rebuild ${PKG}`;
const verbose = process.argv.includes('--verbose');

function say(msg) {
  console.log(`[${PKG}] ${msg}`);
}

function findOpenBlas() {
  if (process.env.TELEPATH_OPENBLAS_LIB_DIRS !== undefined) {
    return process.env.TELEPATH_OPENBLAS_LIB_DIRS.split(':').find(
      (d) => d && (existsSync(join(d, 'libopenblas.so')) || existsSync(join(d, 'libopenblas.dylib'))),
    );
  }
  const dirs = [
    '/usr/lib',
    '/usr/lib64',
    '/usr/local/lib',
    '/opt/homebrew/opt/openblas/lib',
    '/usr/local/opt/openblas/lib',
  ];
  for (const d of ['/usr/lib', '/lib']) {
    try {
      for (const e of readdirSync(d)) if (e.endsWith('-linux-gnu')) dirs.push(join(d, e));
    } catch {
      // not there
    }
  }
  for (const env of ['LIBRARY_PATH', 'LD_LIBRARY_PATH'])
    for (const d of (process.env[env] ?? '').split(':')) if (d) dirs.push(d);
  return dirs.find((d) => existsSync(join(d, 'libopenblas.so')) || existsSync(join(d, 'libopenblas.dylib')));
}

function findNodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(
      dirname(process.execPath),
      '..',
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
  ];
  try {
    candidates.push(createRequire(join(ROOT, 'package.json')).resolve('node-gyp/bin/node-gyp.js'));
  } catch {
    // not installed locally
  }
  return candidates.find((c) => c && existsSync(c));
}

/** Headers for this Node: node-gyp's cache, else the prefix the node binary lives in (Debian: /usr). */
function nodeDirArgs() {
  if (process.env.npm_config_nodedir) return [];
  const version = process.version.slice(1);
  const home = process.env.HOME ?? '';
  const cached = [join(home, '.cache', 'node-gyp', version), join(home, '.node-gyp', version)];
  if (cached.some((d) => existsSync(join(d, 'include', 'node', 'node_api.h')))) return [];
  const prefix = resolve(dirname(process.execPath), '..');
  if (existsSync(join(prefix, 'include', 'node', 'node_api.h'))) return [`--nodedir=${prefix}`];
  return [];
}

function main() {
  if (process.env.TELEPATH_NATIVE_SKIP_BUILD === '1')
    return say('skipped (TELEPATH_NATIVE_SKIP_BUILD=1); the native backend stays off');
  if (process.platform === 'win32') return say('skipped: Windows is not supported; the native backend stays off');
  if (!findOpenBlas()) return say(`skipped: OpenBLAS not found (libopenblas.so); to enable: ${HINT}`);
  const gyp = findNodeGyp();
  if (!gyp) return say(`skipped: node-gyp not found (it ships with npm); to enable: npm rebuild ${PKG}`);
  const work = mkdtempSync(join(tmpdir(), 'telepath-native-'));
  try {
    for (const f of ['binding.gyp', 'native']) cpSync(join(ROOT, f), join(work, f), { recursive: true });
    const args = [gyp, 'rebuild', '--jobs=max', ...nodeDirArgs()];
    const started = Date.now();
    // binding.gyp resolves node-addon-api with require(); point it at this package's modules.
    const nodePath = [join(ROOT, 'node_modules'), join(ROOT, '..', '..', 'node_modules'), process.env.NODE_PATH]
      .filter(Boolean)
      .join(':');
    const r = spawnSync(process.execPath, args, {
      cwd: work,
      env: { ...process.env, NODE_PATH: nodePath },
      encoding: 'utf8',
      stdio: verbose ? 'inherit' : 'pipe',
      maxBuffer: 64 << 20,
    });
    const log = `$ node ${args.join(' ')}\n${r.stdout ?? ''}\n${r.stderr ?? ''}`;
    const logPath = process.env.TELEPATH_NATIVE_LOG || join(ROOT, 'build', 'install.log');
    mkdirSync(dirname(logPath), { recursive: true });
    writeFileSync(logPath, log);
    const built = join(work, 'build', 'Release', 'telepath_native.node');
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    if (r.status === 0 && existsSync(built)) {
      const dest = join(ROOT, 'build', 'Release');
      mkdirSync(dest, { recursive: true });
      const staged = join(dest, `.telepath_native.node.${process.pid}`);
      copyFileSync(built, staged);
      renameSync(staged, join(dest, 'telepath_native.node'));
      return say(`native addon built in ${secs} s`);
    }
    const why = r.error ? r.error.message : firstError(log);
    say(`build failed (${why}); see ${logPath}; to enable: ${HINT}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function firstError(log) {
  const line = log.split('\n').find((l) => /error|not found|No such file/i.test(l) && !/^\$ /.test(l));
  return (line ?? 'unknown error').trim().slice(0, 160);
}

try {
  main();
} catch (e) {
  say(`build skipped after an unexpected error (${e instanceof Error ? e.message : String(e)}); to enable: ${HINT}`);
}
process.exit(0);
