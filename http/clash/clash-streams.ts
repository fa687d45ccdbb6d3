import { concat, concatMap, defer, map, of, type Observable } from 'rxjs';
import type { ClashSampler } from './clash-sampler.js';
import type { ClashStreamPath } from './clash-paths.js';
import { clashLevelParam, clashLogMessages } from './log-lines.js';

export interface StreamSources {
  sampler: ClashSampler;
  /** The node's log lines (JSON), as written. */
  logLines$: Observable<string>;
}

/**
 * The messages of one Clash stream, each a JSON text: `/connections` a snapshot now and
 * at every tick, `/traffic` the bytes of each tick, `/memory` resident bytes (first 0,
 * as mihomo: charts start at zero), `/logs` the log lines at or above `?level=`. All
 * but the logs come from the one shared sample of each tick. Throws a ClashError for a
 * bad `level` before anything is sent.
 */
export function clashStream(path: ClashStreamPath, query: URLSearchParams, src: StreamSources): Observable<string> {
  const { sampler } = src;
  switch (path) {
    case '/connections':
      return concat(
        defer(() => sampler.now().connectionsJson()),
        sampler.samples$.pipe(concatMap((s) => s.connectionsJson())),
      );
    case '/traffic':
      return sampler.samples$.pipe(map((s) => JSON.stringify({ up: s.up, down: s.down })));
    case '/memory':
      return concat(of(JSON.stringify({ inuse: 0, oslimit: 0 })), sampler.samples$.pipe(map((s) => JSON.stringify({ inuse: s.inuse, oslimit: 0 }))));
    case '/logs':
      return src.logLines$.pipe(clashLogMessages(clashLevelParam(query.get('level') ?? undefined)));
  }
}
