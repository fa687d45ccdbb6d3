import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * The product's folders, lowest layer first. A file imports only files of its own
 * folder or of a lower layer, so no import runs back up and no folders form a cycle;
 * a new folder must be placed here.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['streams', 'actors/base', 'actors/net'],
  ['actors/errors', 'actors/contracts'],
  ['actors/files'],
  ['actors/config'],
  ['actors/redis'],
  ['actors/socks5', 'actors/sniff', 'actors/hook', 'actors/process', 'actors/principals', 'actors/router'],
  ['actors/outbounds', 'actors/outbox', 'actors/sinks'],
  ['actors/flows', 'actors/policies', 'actors/webhook', 'actors/upgrade'],
  ['actors/udp'],
  ['actors/inbounds'],
  ['actors/engine'],
  ['actors/workers'],
  ['actors/control'],
  ['actors/fleet', 'http/common'],
  ['http/auth', 'http/tls'],
  ['http/events', 'ipc'],
  ['http/clash', 'http/metrics', 'http/routes'],
  ['http'],
  ['cli'],
];

// Compiled to dist/spec/unit: the sources are three folders up.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((d) => {
    const rel = `${dir}/${d.name}`;
    if (d.isDirectory()) return sources(rel);
    return d.name.endsWith('.ts') && !d.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** The product files each file imports, by the compiler's own scan of its imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of ['actors', 'streams', 'http', 'ipc', 'cli'].flatMap(sources)) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => path.posix.join(path.posix.dirname(file), name).replace(/\.js$/, '.ts'));
    graph.set(file, targets);
  }
  return graph;
}

/** `actors/<x>` and `http/<x>` are folders of their own; `streams`, `http`, `ipc` and `cli` hold their top files. */
function folderOf(file: string): string {
  const parts = file.split('/');
  return (parts[0] === 'actors' || parts[0] === 'http') && parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

const layerOf = new Map(LAYERS.flatMap((folders, layer) => folders.map((f) => [f, layer] as const)));

test('every product folder has its place in the layer order', () => {
  const unplaced = [...new Set([...importGraph().keys()].map(folderOf))].filter((f) => !layerOf.has(f));
  assert.equal(unplaced, [], 'folders missing from LAYERS');
});

test('every import runs to the same folder or to a lower layer', () => {
  const upward: string[] = [];
  for (const [file, targets] of importGraph()) {
    for (const target of targets) {
      const [from, to] = [folderOf(file), folderOf(target)];
      if (from !== to && !(layerOf.get(to)! < layerOf.get(from)!)) upward.push(`${file} → ${target}`);
    }
  }
  assert.equal(upward, []);
});

test('no file imports itself through others', () => {
  const graph = importGraph();
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (file: string, trail: string[]): void => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(file)), file].join(' → '));
      return;
    }
    state.set(file, 'open');
    for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  assert.equal(cycles, []);
});

test.run();
