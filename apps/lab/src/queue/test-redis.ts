/**
 * For tests: a private redis-server on 127.0.0.1 and a free port, with no snapshots of its own, in
 * a temporary folder, stopped afterwards. `restart()` stops it with one snapshot (SHUTDOWN SAVE)
 * and starts it again on the same port, as a restarted production Redis comes back with its data.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export interface TestRedis {
  url: string;
  port: number;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Why the Redis tests cannot run here, or null when redis-server is installed. */
export function redisUnavailable(): string | null {
  const r = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return r.status === 0
    ? null
    : 'redis-server is not installed (scripts/setup.sh installs it: apt-get install redis-server)';
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startRedis(o: { password?: string } = {}): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'telepath-redis-'));
  const auth = o.password ? `:${o.password}@` : '';
  const url = `redis://${auth}127.0.0.1:${port}`;
  let child: ChildProcess = await launch();
  return {
    url,
    port,
    async restart() {
      await command(['SHUTDOWN', 'SAVE']);
      await exited(child);
      child = await launch();
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited(child);
      }
    },
  };

  async function launch(): Promise<ChildProcess> {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--dbfilename',
      'dump.rdb',
      ...(o.password ? ['--requirepass', o.password] : []),
    ];
    const p = spawn('redis-server', args, { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      if (
        await command(['PING']).then(
          () => true,
          () => false,
        )
      )
        return p;
      await new Promise((r) => setTimeout(r, 50));
    }
    p.kill('SIGKILL');
    throw new Error(`redis-server on port ${port} did not start`);
  }

  async function command(args: string[]): Promise<void> {
    const r = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    r.on('error', () => {});
    try {
      await r.connect();
      await r.call(args[0], ...args.slice(1)).catch((e: Error) => {
        if (args[0] !== 'SHUTDOWN') throw e; // SHUTDOWN closes the connection instead of answering
      });
    } finally {
      r.disconnect();
    }
  }
}

function exited(p: ChildProcess): Promise<void> {
  return p.exitCode !== null ? Promise.resolve() : new Promise((resolve) => p.once('exit', () => resolve()));
}
