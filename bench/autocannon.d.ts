// Minimal typings for the parts of autocannon@9 the bench uses (the package ships none, and
// @types/autocannon is not a dependency).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    p999?: number;
    total: number;
  }
  /** One request of a client's sequence: setupRequest rebuilds it before each send. */
  interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setupRequest?: (request: RequestSpec & { headers: Record<string, string> }, context: Record<string, unknown>) => RequestSpec | null | undefined;
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string | string[]>) => void;
  }
  /** One connection (autocannon calls setupClient once per connection, before it sends anything). */
  interface Client {
    setRequests(requests: RequestSpec[]): void;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    /** Stop after this many requests (overrides duration); every one is answered before the run ends. */
    amount?: number;
    setupClient?: (client: Client) => void;
    requests?: RequestSpec[];
    body?: string | Buffer;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    timeout?: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    duration: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
