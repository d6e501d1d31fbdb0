// Scratch: runs several proto configs in sequence, one summary line each.
import { execFileSync } from 'node:child_process';
const runs: unknown[] = JSON.parse(process.argv[2]);
for (const r of runs) {
  const out = execFileSync('npx', ['tsx', 'bench/proto.ts', JSON.stringify(r)], { encoding: 'utf8' });
  console.log(JSON.stringify(r), '\n  ', out.trim().split('\n').filter((l) => l.startsWith('true') || l.startsWith('{')).join('\n   '));
}
