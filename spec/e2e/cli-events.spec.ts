import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { within } from '../../actors/base/within.js';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { waitFor } from '../support/wait-for.js';
import { spawnWeir } from '../support/weir-child.js';
import { cliFixture } from '../support/cli-fixture.js';

const setup = cliFixture(test);

type Line = { event_type: string; sequence: number; payload: Record<string, unknown> };

/** `weir events` against the fixture's node, with its output collected. */
function events(configPath: string, ...extra: string[]): { lines(): Line[]; stderr(): string; stop(): Promise<number | null>; exited: Promise<number | null> } {
  const weir = spawnWeir(['events', '-c', configPath, ...extra]);
  return {
    // Complete lines only: a chunk may end inside one.
    lines: () =>
      weir
        .stdout()
        .slice(0, weir.stdout().lastIndexOf('\n') + 1)
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Line),
    stderr: weir.stderr,
    stop: () => weir.stop('SIGINT'),
    exited: weir.exit,
  };
}

test('events prints the flow.snapshot, then live envelopes as JSON lines, and ends with exit 0 on SIGINT', async () => {
  const { node, origin, via } = await setup();
  const cli = events(node.configPath);
  await waitFor(() => cli.lines().length > 0, WAIT_MS, 'the snapshot line');
  const download = await curl([...via, origin.url('/bytes/64?case=cli-events')]);
  assert.is(download.code, 0);
  await waitFor(() => cli.lines().some((l) => l.event_type === 'flow.completed'), WAIT_MS, 'flow.completed on stdout');
  assert.is(await cli.stop(), 0, cli.stderr());

  const [snapshot, ...live] = cli.lines();
  assert.equal([snapshot?.event_type, snapshot?.payload['records']], ['flow.snapshot', []]);
  const flowTypes = live.filter((l) => l.event_type.startsWith('flow.')).map((l) => l.event_type);
  assert.equal(flowTypes.filter((t) => t !== 'flow.updated'), ['flow.started', 'flow.routed', 'flow.completed']);
  assert.ok(live.every((l) => l.sequence > (snapshot?.sequence ?? Infinity)), 'live events follow the watermark');
  assert.is(cli.stderr(), '');
});

test('events --types prints only the event types it names', async () => {
  const { node, origin, via } = await setup();
  const cli = events(node.configPath, '--types', 'flow.snapshot,flow.completed');
  await waitFor(() => cli.lines().length > 0, WAIT_MS, 'the snapshot line');
  const download = await curl([...via, origin.url('/bytes/64?case=cli-events-types')]);
  assert.is(download.code, 0);
  await waitFor(() => cli.lines().some((l) => l.event_type === 'flow.completed'), WAIT_MS, 'flow.completed on stdout');
  assert.is(await cli.stop(), 0, cli.stderr());
  assert.equal(
    cli.lines().map((l) => l.event_type),
    ['flow.snapshot', 'flow.completed'],
  );
});

test('events --types with an event type the node does not know is refused (exit 4)', async () => {
  const { weir } = await setup();
  const result = await weir('events', '--types', 'flow.started,flow.nope');
  assert.equal([result.code, result.stdout, result.stderr], [4, '', 'weir: unknown event type "flow.nope"\n']);
});

test('events --types naming no type is a usage error (exit 2)', async () => {
  const { weir } = await setup();
  const result = await weir('events', '--types', ',');
  assert.equal([result.code, result.stderr], [2, 'weir: usage: weir events [--types TYPE,TYPE...] (--types names no event type)\n']);
});

// Last: it stops the fixture's node.
test('events ends with exit 0 when the node stops: engine.stopped is its last line', async () => {
  const { node } = await setup();
  const cli = events(node.configPath);
  await waitFor(() => cli.lines().length > 0, WAIT_MS, 'the snapshot line');
  assert.is(await node.stop(), 0);
  assert.is(await within(cli.exited, WAIT_MS), 0, cli.stderr());
  assert.equal([cli.lines().at(-1)?.event_type, cli.stderr()], ['engine.stopped', '']);
});

test.run();
