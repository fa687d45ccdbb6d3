import path from 'node:path';
import type { ConfigProblem } from './problems.js';
import type { WeirConfig } from './schema.js';

/**
 * JSONL sinks that would write into a file the node keeps otherwise: another sink's
 * (every event archived twice, interleaved), the log, the config file (the node could
 * not read it again: every later config.apply, the removal of that sink included, and
 * the next start were refused), or one of the node's own files in its state_dir (its
 * sequences, marks, outbox, applied config). In the state_dir a sink's file must end in
 * `.jsonl`, which none of the node's own files does. Paths are absolute here.
 */
export function checkSinkPaths(config: WeirConfig, configFile?: string): ConfigProblem[] {
  const taken = new Map<string, string>();
  if (configFile !== undefined) taken.set(path.resolve(configFile), 'the config file');
  if (config.log.file !== undefined) taken.set(config.log.file, 'the log file');
  return config.event_sinks.flatMap((sink, i): ConfigProblem[] => {
    if (sink.type !== 'jsonl') return [];
    const at = `event_sinks[${i}].path`;
    const owner = taken.get(sink.path);
    if (owner !== undefined) return [{ path: at, message: `${sink.path} is ${owner}` }];
    taken.set(sink.path, `the file of sink "${sink.tag}"`);
    if (inside(config.node.state_dir, sink.path) && !sink.path.endsWith('.jsonl')) {
      return [{ path: at, message: `must end in .jsonl inside node.state_dir (${config.node.state_dir}), where the node keeps its own files` }];
    }
    return [];
  });
}

/** Whether `file` lies under `dir` (both absolute), not `dir` itself. */
export function inside(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
