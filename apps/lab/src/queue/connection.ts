/**
 * The Redis that holds the queue: opened once per command, with a clear error for an unreachable
 * server (its URL, and how to start one), a wrong or missing password, and a queue made by another
 * version of telepath (its job format is stamped in Redis by the first `queue add`).
 */
import { Redis } from 'ioredis';

/** The one BullMQ queue every experiment's jobs go to (workers take from it without naming an experiment). */
export const QUEUE_NAME = 'telepath-arms';
/** The shape of a job's data; a queue stamped with another format was made by another version. */
export const QUEUE_FORMAT = 1;
const FORMAT_KEY = 'telepath:queue-format';

/** The URL with any password replaced by "***", for messages. */
export function safeUrl(url: string): string {
  return url.replace(/^(rediss?:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}

/**
 * A connection BullMQ can share: it reconnects for ever when Redis goes away (a restart), and holds
 * commands until it is back. Before it is handed out, one probe without retries checks the server
 * is there and takes the password, so a wrong URL fails at once with a message.
 */
export async function openRedis(url: string): Promise<Redis> {
  if (!/^rediss?:\/\//.test(url))
    throw new Error(
      `--redis: expected a URL like redis://HOST:6379 (or redis://:PASSWORD@HOST:6379/DB), got ${JSON.stringify(url)}`,
    );
  const probe = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 5000,
    enableOfflineQueue: false,
  });
  let cause: Error | null = null; // what closed the connection (connect() itself only says "Connection is closed.")
  probe.on('error', (e: Error) => (cause ??= e));
  try {
    await probe.connect();
    await probe.ping();
  } catch (e) {
    throw explain(url, cause ?? (e as Error));
  } finally {
    probe.disconnect();
  }
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  redis.on('error', () => {}); // reconnects on its own; the worker reports outages through BullMQ's events
  return redis;
}

function explain(url: string, e: Error & { code?: string }): Error {
  const msg = e.message;
  const where = safeUrl(url);
  if (/WRONGPASS|invalid username-password|invalid password/i.test(msg))
    return new Error(
      `Redis at ${where} refused the password (${msg.trim()}): put the right one in the URL, redis://:PASSWORD@HOST:PORT (or redis://USER:PASSWORD@HOST:PORT)`,
    );
  if (/NOAUTH/i.test(msg))
    return new Error(`Redis at ${where} requires a password: put it in the URL, redis://:PASSWORD@HOST:PORT`);
  return new Error(
    `cannot reach Redis at ${where} (${e.code ?? msg}). Start one where every machine can reach it, e.g. ` +
      `"redis-server --port 6379 --bind 0.0.0.0 --requirepass SECRET" (Debian: apt-get install redis-server), ` +
      `then pass its URL: --redis redis://:SECRET@HOST:6379`,
  );
}

/**
 * Checks the queue's format stamp (and sets it on a fresh Redis when `stamp`): a queue stamped by
 * another version of telepath holds jobs this one would misread.
 */
export async function checkQueueFormat(redis: Redis, url: string, stamp: boolean): Promise<void> {
  if (stamp) await redis.set(FORMAT_KEY, String(QUEUE_FORMAT), 'NX');
  const found = await redis.get(FORMAT_KEY);
  if (found === null || Number(found) === QUEUE_FORMAT) return;
  throw new Error(
    `the queue at ${safeUrl(url)} was made by another version of telepath (queue format ${found}; this one reads format ${QUEUE_FORMAT}). ` +
      `Let that version's workers finish it, or use another Redis database for this one (redis://HOST:PORT/1), or empty it with: redis-cli -u URL FLUSHDB`,
  );
}
