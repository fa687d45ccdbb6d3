import fc from 'fast-check';
import * as assert from 'uvu/assert';
import type { ConfigProblem } from '../../actors/config/problems.js';

/** Marks every secret of the documents below: no problem message may hold it. */
export const SECRET = 'fz-secret';

/** A valid config of most kinds of part, its secrets inline. */
export function validDoc(stateDir: string): Record<string, unknown> {
  return {
    node: { id: 'fuzz', state_dir: stateDir },
    log: { level: 'info' },
    control: { listen: '127.0.0.1:0', api_key: `${SECRET}-api-0123456789` },
    inbounds: [
      { type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0, users: [{ username: 'alice', password: `${SECRET}-alice`, principal: 'a' }] },
      { type: 'http', tag: 'http-in', listen: '127.0.0.1', port: 0 },
    ],
    outbounds: [
      { type: 'direct', tag: 'direct' },
      { type: 'block', tag: 'block' },
      { type: 'socks', tag: 'up', server: '127.0.0.1', port: 1080, username: 'weir', password: `${SECRET}-up` },
      { type: 'http', tag: 'exit', server: '127.0.0.1', port: 3128 },
      { type: 'chain', tag: 'via-up', hops: ['up', 'exit'] },
      { type: 'selector', tag: 'proxy', members: ['direct', 'via-up'], default: 'direct' },
    ],
    route: { rules: [{ ip_cidr: ['10.0.0.0/8'], outbound: 'block' }, { domain_suffix: ['example.com'], outbound: 'proxy' }], final: 'direct' },
    event_sinks: [{ type: 'jsonl', tag: 'archive', path: `${stateDir}/events.jsonl`, events: ['*'] }],
  };
}

type Path = (string | number)[];

/** Every place in a document: its keys and indexes, the document itself first. */
function places(value: unknown, at: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [at];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [at, ...entries.flatMap(([k, v]) => places(v, [...at, k]))];
}

/** Values a hand-edited config gets wrong most: types, ranges, empty, names of other parts. */
const wrong = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(0, -1, 65536, 1.5, 1e400, '', 'x', null, [], {}, true, '127.0.0.1:0', 'direct', 'proxy', 'via-up', '*', '../x', '/'),
);

type Edit = { op: 'replace'; value: unknown } | { op: 'remove'; value: unknown } | { op: 'add'; key: string; value: unknown };
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('replace' as const), value: wrong }),
  fc.record({ op: fc.constant('remove' as const), value: fc.constant(null) }),
  fc.record({ op: fc.constant('add' as const), key: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('type', 'tag', 'port', 'users', 'outbound', '__proto__')), value: wrong }),
);

/** The value at a place, or undefined when an earlier edit took the place away. */
function valueAt(doc: unknown, at: Path): unknown {
  return at.reduce<unknown>((v, k) => (typeof v === 'object' && v !== null ? (v as Record<string | number, unknown>)[k] : undefined), doc);
}

function applyEdit(doc: unknown, at: Path, e: Edit): unknown {
  if (at.length === 0) return e.op === 'replace' ? e.value : e.op === 'remove' ? undefined : doc;
  const parent = valueAt(doc, at.slice(0, -1));
  if (typeof parent !== 'object' || parent === null) return doc;
  const key = at[at.length - 1]!;
  const slots = parent as Record<string | number, unknown>;
  if (e.op === 'replace') slots[key] = e.value;
  else if (e.op === 'remove') {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete slots[key];
  } else if (e.op === 'add') {
    const target = slots[key];
    // defineProperty: a key "__proto__" is then an own key, as JSON.parse makes it.
    if (Array.isArray(target)) target.push(e.value);
    else if (typeof target === 'object' && target !== null) Object.defineProperty(target, e.key, { value: e.value, enumerable: true, writable: true, configurable: true });
  }
  return doc;
}

/** validDoc with one to three parts replaced, removed or added. */
export function nearValid(stateDir: string): fc.Arbitrary<unknown> {
  const all = places(validDoc(stateDir));
  return fc
    .array(fc.tuple(fc.nat({ max: all.length - 1 }), edit), { minLength: 1, maxLength: 3 })
    .map((edits) => edits.reduce<unknown>((doc, [i, e]) => applyEdit(doc, all[i]!, e), validDoc(stateDir)));
}

/** A refusal: at least one problem, each a path string and a message. */
export function assertProblems(problems: ConfigProblem[]): void {
  assert.ok(problems.length > 0, 'a refusal names its problems');
  for (const p of problems) {
    assert.type(p.path, 'string');
    assert.type(p.message, 'string');
    assert.ok(p.message.length > 0, 'a problem has a message');
  }
}
