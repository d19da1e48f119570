import { Redis } from 'ioredis';

export interface RateLimitDecision {
  /** Requests counted in the current window, including this one. */
  count: number;
  /** Milliseconds until the window (or the block) ends. */
  resetMs: number;
  blocked: boolean;
}

export interface RateLimitRule {
  limit: number;
  windowMs: number;
  /** How long a tracker stays refused after going over the limit (the reference's block duration). */
  blockMs: number;
}

/** A fixed-window counter per tracker, as the reference's throttler keeps it. */
export interface RateLimitStore {
  hit(tracker: string, rule: RateLimitRule, now: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

interface Window {
  count: number;
  endsAt: number;
  blockedUntil: number;
}

export function createMemoryRateLimitStore(): RateLimitStore {
  const windows = new Map<string, Window>();
  let sweptAt = 0;
  const sweep = (now: number) => {
    for (const [tracker, window] of windows) if (window.endsAt <= now && window.blockedUntil <= now) windows.delete(tracker);
    sweptAt = now;
  };
  return {
    async hit(tracker, rule, now) {
      if (now - sweptAt > rule.windowMs) sweep(now);
      let window = windows.get(tracker);
      if (window && window.blockedUntil > now) return { count: window.count, resetMs: window.blockedUntil - now, blocked: true };
      if (!window || window.endsAt <= now) {
        window = { count: 0, endsAt: now + rule.windowMs, blockedUntil: 0 };
        windows.set(tracker, window);
      }
      window.count += 1;
      if (window.count > rule.limit) {
        if (rule.blockMs > 0) {
          window.blockedUntil = now + rule.blockMs;
          return { count: window.count, resetMs: rule.blockMs, blocked: true };
        }
        return { count: window.count, resetMs: window.endsAt - now, blocked: true };
      }
      return { count: window.count, resetMs: window.endsAt - now, blocked: false };
    },
    async close() {
      windows.clear();
    },
  };
}

// Atomic in Redis, so every API process sharing it counts into the same window.
const HIT_SCRIPT = `
local blockedTtl = redis.call('PTTL', KEYS[2])
if blockedTtl > 0 then return {tonumber(ARGV[1]) + 1, blockedTtl, 1} end
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
local ttl = redis.call('PTTL', KEYS[1])
if count > tonumber(ARGV[1]) then
  if tonumber(ARGV[3]) > 0 then
    redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
    return {count, tonumber(ARGV[3]), 1}
  end
  return {count, ttl, 1}
end
return {count, ttl, 0}`;

export function createRedisRateLimitStore(url: string, keyPrefix = 'svc:rl:'): RateLimitStore {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
  redis.on('error', () => {});
  redis.defineCommand('svcRateLimitHit', { numberOfKeys: 2, lua: HIT_SCRIPT });
  return {
    async hit(tracker, rule) {
      const [count, resetMs, blocked] = (await (redis as unknown as Record<string, (...args: unknown[]) => Promise<number[]>>)
        .svcRateLimitHit!(`${keyPrefix}${tracker}`, `${keyPrefix}${tracker}:blocked`, rule.limit, rule.windowMs, rule.blockMs)) as [
        number,
        number,
        number,
      ];
      return { count, resetMs: Math.max(0, resetMs), blocked: blocked === 1 };
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
