import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface HttpMetrics {
  registry: Registry;
  observe(request: FastifyRequest, reply: FastifyReply): void;
}

export function createHttpMetrics(options: { processMetrics: boolean }): HttpMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry, prefix: 'svc_' });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'svc_http_requests_total', help: 'HTTP requests by route and status', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    registry,
    observe(request, reply) {
      // Route templates, never raw URLs, so an id in a path cannot explode the label set.
      const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
      requests.inc(labels);
      duration.observe(labels, reply.elapsedTime / 1000);
    },
  };
}
