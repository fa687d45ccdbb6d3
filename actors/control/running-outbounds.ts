import type { ConfigProblem } from '../config/problems.js';
import type { WeirConfig } from '../config/schema.js';

/**
 * The route's references to outbounds the running node does not have. Outbounds are
 * not hot: a reload or apply whose route names one added to the file since the start
 * is refused, where applying it would send every matching flow to a tag that cannot
 * dial.
 */
export function routeOutboundsNotRunning(config: WeirConfig, running: (tag: string) => boolean): ConfigProblem[] {
  const { route } = config;
  const refs: [string, string | undefined][] = [
    ...route.rules.map((r, i): [string, string] => [`route.rules[${i}].outbound`, r.outbound]),
    ['route.final', route.final],
    ['route.global_target', route.global_target],
  ];
  return refs.flatMap(([path, tag]) =>
    tag === undefined || running(tag) ? [] : [{ path, message: `outbound "${tag}" is not running: outbounds change only on restart` }],
  );
}
