import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

/** One line per request: method, path (never the query: it may hold `?token=`), status, duration. */
export function logRequests(log: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const { method, path } = req;
    res.once('close', () => {
      const line = { method, path, status: res.statusCode, duration_ms: Math.round(performance.now() - started) };
      // 503 is the node shedding load (stopping, live streams full) and says so itself, once: not a fault.
      if (res.statusCode >= 500 && res.statusCode !== 503) log.error(line, 'control request');
      else if (res.statusCode >= 400) log.info(line, 'control request');
      else log.debug(line, 'control request');
    });
    next();
  };
}
