/**
 * Clear errors before any job moves: an unreachable Redis (its URL and how to start one), a wrong
 * or missing password (never echoed), a queue stamped by another version of telepath.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkQueueFormat, openRedis, QUEUE_FORMAT, safeUrl } from './connection.js';
import { freePort, redisUnavailable, startRedis, type TestRedis } from './test-redis.js';

const unavailable = redisUnavailable();

it('an unreachable Redis names the URL and how to start one', async () => {
  const port = await freePort(); // nothing listens there
  await expect(openRedis(`redis://127.0.0.1:${port}`)).rejects.toThrow(
    new RegExp(
      `cannot reach Redis at redis://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)\\. Start one .*redis-server --port 6379`,
    ),
  );
  await expect(openRedis('localhost:6379')).rejects.toThrow(/--redis: expected a URL like redis:\/\/HOST:6379/);
});

it('safeUrl hides the password', () => {
  expect(safeUrl('redis://:s3cret@host:6379/2')).toBe('redis://:***@host:6379/2');
  expect(safeUrl('redis://user:s3cret@host:6379')).toBe('redis://user:***@host:6379');
  expect(safeUrl('redis://host:6379')).toBe('redis://host:6379');
});

describe.skipIf(unavailable !== null)(
  unavailable ? `Redis errors (skipped: ${unavailable})` : 'Redis errors on a real redis-server',
  () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startRedis({ password: 'right' });
    });
    afterAll(async () => redis?.stop());

    it('a wrong or missing password says so, without echoing it', async () => {
      const wrong = openRedis(`redis://:wrong-one@127.0.0.1:${redis.port}`);
      await expect(wrong).rejects.toThrow(
        new RegExp(`Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${redis.port} refused the password`),
      );
      await expect(wrong.catch((e: Error) => e.message)).resolves.not.toMatch(/wrong-one/);
      await expect(openRedis(`redis://127.0.0.1:${redis.port}`)).rejects.toThrow(
        /requires a password: put it in the URL, redis:\/\/:PASSWORD@HOST:PORT/,
      );
      const ok = await openRedis(redis.url);
      expect(await ok.ping()).toBe('PONG');
      ok.disconnect();
    });

    it('a queue made by another version of telepath is refused', async () => {
      const url = `${redis.url}/5`;
      const r = await openRedis(url);
      try {
        await checkQueueFormat(r, url, true); // a fresh queue: stamped with this format
        expect(await r.get('telepath:queue-format')).toBe(String(QUEUE_FORMAT));
        await r.set('telepath:queue-format', '999');
        await expect(checkQueueFormat(r, url, false)).rejects.toThrow(
          /the queue at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/5 was made by another version of telepath \(queue format 999; this one reads format 1\)/,
        );
      } finally {
        r.disconnect();
      }
    });
  },
);
