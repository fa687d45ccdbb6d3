import type { RequestHandler } from 'express';
import type { Registry } from 'prom-client';

/** GET /metrics: the registry in Prometheus text format, collected at the request. */
export function metricsRoute(registry: Registry): RequestHandler {
  return async (_req, res) => {
    const text = await registry.metrics();
    res.type(registry.contentType).send(text);
  };
}
