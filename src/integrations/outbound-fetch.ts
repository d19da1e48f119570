import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isPublicAddress, publicOnlyLookup } from '../lib/outbound-address.js';

/** How svc calls a server a user named (a calendar feed, a CalDAV server). */
export interface OutboundPolicy {
  /** Loopback, private and link-local addresses allowed (SVC_ALLOW_PRIVATE_WEBHOOKS=1). */
  allowPrivate: boolean;
  /** The whole exchange, connect to last byte. */
  timeoutMs: number;
  /** Larger answers fail instead of filling memory. */
  maxResponseBytes: number;
  /** Redirects followed at most (each target is checked like the first). */
  maxRedirects?: number;
}

/** Why an outbound call failed before an HTTP answer: the adapters map it to their own errors. */
export class OutboundError extends Error {
  constructor(
    readonly reason: 'refused_address' | 'timeout' | 'too_large' | 'network' | 'too_many_redirects' | 'bad_url',
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * A `fetch` for adapters (tsdav takes one) that goes through node:http(s) with the private-address
 * guard on every connection (names are checked when each connection is made, so a name re-pointed
 * after it was saved cannot reach inside), a deadline over the whole exchange, a cap on the answer's
 * size, and redirects followed only to checked targets. Node's own fetch cannot take a `lookup`.
 */
export function outboundFetch(policy: OutboundPolicy): typeof fetch {
  const lookup = publicOnlyLookup(policy.allowPrivate);
  const maxRedirects = policy.maxRedirects ?? 3;
  const call = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : null;
    let url: URL;
    try {
      url = new URL(request ? request.url : String(input));
    } catch {
      throw new OutboundError('bad_url', `not a URL: ${String(input)}`);
    }
    let method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers ?? request?.headers);
    let body: Buffer | null = null;
    const rawBody = init?.body ?? (request && request.body ? await request.arrayBuffer() : null);
    if (rawBody !== null && rawBody !== undefined) {
      body = typeof rawBody === 'string' ? Buffer.from(rawBody) : Buffer.from(await new Response(rawBody as BodyInit).arrayBuffer());
    }
    const deadline = Date.now() + policy.timeoutMs;
    for (let redirects = 0; ; redirects++) {
      const answer = await exchange(url, method, headers, body, deadline, lookup, policy);
      const location = answer.headers.get('location');
      if (!REDIRECTS.has(answer.status) || !location) return answer;
      if (redirects >= maxRedirects) throw new OutboundError('too_many_redirects', `more than ${maxRedirects} redirects from ${url.origin}`);
      url = new URL(location, url);
      if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
        method = 'GET';
        body = null;
      }
    }
  };
  return call as typeof fetch;
}

function exchange(
  url: URL,
  method: string,
  headers: Headers,
  body: Buffer | null,
  deadline: number,
  lookup: ReturnType<typeof publicOnlyLookup>,
  policy: OutboundPolicy,
): Promise<Response> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new OutboundError('bad_url', `not an http(s) URL: ${url.href}`));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Node does not look up address literals, so the lookup cannot refuse them: checked here.
  if (!policy.allowPrivate && isIP(host) && !isPublicAddress(host)) {
    return Promise.reject(new OutboundError('refused_address', `refused: ${host} is a non-public address`));
  }
  const remaining = deadline - Date.now();
  if (remaining <= 0) return Promise.reject(new OutboundError('timeout', `timed out after ${policy.timeoutMs} ms`));
  const client = url.protocol === 'https:' ? https : http;
  const outgoing: Record<string, string> = { 'user-agent': 'svc-calendars/1' };
  headers.forEach((value, name) => {
    outgoing[name] = value;
  });
  if (body) outgoing['content-length'] = String(body.length);
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(error);
    };
    const req = client.request(url, { method, headers: outgoing, lookup });
    const timer = setTimeout(() => fail(new OutboundError('timeout', `timed out after ${policy.timeoutMs} ms`)), remaining);
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof OutboundError) return fail(error);
      if (error.code === 'ESVCPRIVATE') return fail(new OutboundError('refused_address', error.message));
      fail(new OutboundError('network', error.code && !error.message.includes(error.code) ? `${error.code}: ${error.message}` : error.message));
    });
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > policy.maxResponseBytes) return fail(new OutboundError('too_large', `the answer is larger than ${policy.maxResponseBytes} bytes`));
        chunks.push(chunk);
      });
      response.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value === undefined) continue;
          for (const item of Array.isArray(value) ? value : [value]) answerHeaders.append(name, item);
        }
        const status = response.statusCode ?? 0;
        const nullBody = status === 204 || status === 304 || method === 'HEAD';
        resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, statusText: response.statusMessage ?? '', headers: answerHeaders }));
      });
      response.on('error', (error) => fail(new OutboundError('network', `answer interrupted: ${error.message}`)));
    });
    req.end(body ?? undefined);
  });
}
