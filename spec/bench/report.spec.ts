import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { LoadRound } from './load-share.js';
import { emptyLoadSamples, emptySamples, formatLoadNotes, formatTable, median, summarize, type Samples } from './report.js';

const samples = (s: Partial<Samples>): Samples => ({ ...emptySamples(), ...s });
const light: LoadRound = { client: 10, origin: 5, clientCores: 0.3, originCores: 0.1 };

test('median takes the middle value, or the mean of the two middle values', () => {
  assert.is(median([5, 1, 3]), 3);
  assert.is(median([4, 1, 3, 2]), 2.5);
});

test('ratios are taken against the raw Node SOCKS5 relay median', () => {
  const summary = summarize(samples({ throughput: { 'node-socks5': [4, 6, 5], dante: [10, 10, 10] } }));
  assert.equal(summary.throughput.peers.dante, { samples: [10, 10, 10], median: 10, ratio: 2, paired: 2, load: null });
  assert.is(summary.throughput.weir, null);
});

test('weir passes at exactly the target and misses just beyond it', () => {
  const at = summarize(
    samples({
      throughput: { 'node-socks5-malloc': [10], weir: [9.5] },
      throughput_cpu: { 'node-socks5': [10], weir: [11] },
      rate_cpu: { 'node-socks5': [10], weir: [16] },
      idle: { 'node-socks5': [10], weir: [20] },
    }),
  );
  assert.equal(at.throughput.weir, { target: '≥0.95× node-socks5-malloc', pass: true, why: [] });
  assert.equal(at.throughput_cpu.weir, { target: '≤1.1×', pass: true, why: [] });
  assert.equal(at.rate_cpu.weir, { target: '≤1.6×', pass: true, why: [] });
  assert.equal(at.idle.weir, { target: '≤2×', pass: true, why: [] });
  const beyond = summarize(
    samples({
      throughput: { 'node-socks5-malloc': [10], weir: [9.4] },
      throughput_cpu: { 'node-socks5': [10], weir: [11.1] },
      rate_cpu: { 'node-socks5': [10], weir: [16.1] },
      idle: { 'node-socks5': [10], weir: [20.1] },
    }),
  );
  assert.is(beyond.throughput.weir?.pass, false);
  assert.is(beyond.throughput_cpu.weir?.pass, false);
  assert.is(beyond.rate_cpu.weir?.pass, false);
  assert.is(beyond.idle.weir?.pass, false);
});

test('the connection rate and the p99 latency are shown with their ratios and no verdict', () => {
  const summary = summarize(samples({ rate: { 'node-socks5': [3000], weir: [1500] }, p99: { 'node-socks5': [10], weir: [30] } }));
  assert.is(summary.rate.peers.weir?.paired, 0.5);
  assert.is(summary.rate.weir, null);
  assert.is(summary.p99.peers.weir?.paired, 3);
  assert.is(summary.p99.weir, null);
});

test('the table shows median, range, both ratios and verdict of weir', () => {
  const lines = formatTable(summarize(samples({ throughput: { 'node-socks5': [3, 3.4], 'node-socks5-malloc': [3, 3.4], weir: [2, 2.4, 2.6] } }))).split('\n');
  assert.equal(lines.length, 4);
  // Paired: 2/3 and 2.4/3.4, median 0.686; round 3 has no node-socks5 value.
  assert.match(lines[3] ?? '', /^\s+weir\s+2\.40\s+2\.00–2\.60\s+3\s+0\.75×\s+0\.69×\s+-\s+-\s+≥0\.95× node-socks5-malloc\s+MISS$/);
});

test('the stream is judged against the relay under bin/weir\'s malloc settings, paired by round', () => {
  const summary = summarize(samples({ throughput: { 'node-socks5': [4, 4], 'node-socks5-malloc': [8, 6], weir: [7.6, 5.8] } }));
  // Against node-socks5 weir streams 1.9× and 1.45×; against the same relay under its malloc settings 0.95× and 0.97×.
  assert.is(summary.throughput.peers.weir?.paired, (1.9 + 1.45) / 2);
  assert.equal(summary.throughput.weir, { target: '≥0.95× node-socks5-malloc', pass: true, why: [] });
  const slower = summarize(samples({ throughput: { 'node-socks5': [4], 'node-socks5-malloc': [8], weir: [7.5] } }));
  assert.is(slower.throughput.weir?.pass, false);
  // Without that relay in the run there is no verdict on the stream.
  assert.is(summarize(samples({ throughput: { 'node-socks5': [4], weir: [7.5] } })).throughput.weir, null);
});

test('the verdict uses the ratios of rounds measured together, pairing by round across holes', () => {
  // A slow second round for both: medians say 1.7×, every round says 1.6× or less.
  const summary = summarize(samples({ rate_cpu: { 'node-socks5': [100, 200, undefined, 100], weir: [160, 300, 100, 150] } }));
  assert.is(summary.rate_cpu.peers.weir?.ratio, 155 / 100);
  assert.is(summary.rate_cpu.peers.weir?.paired, 1.5);
  assert.equal(summary.rate_cpu.weir, { target: '≤1.6×', pass: true, why: [] });
  assert.equal(summary.rate_cpu.peers.weir?.samples, [160, 300, 100, 150]);
});

test('the load columns set the client and origin CPU against the cheapest proxy and show their most cores', () => {
  const load = emptyLoadSamples();
  load.rate['node-socks5'] = [light, { ...light, client: 40, clientCores: 0.5 }];
  load.rate.weir = [{ ...light, client: 20 }, light];
  const summary = summarize(samples({ rate_cpu: { 'node-socks5': [100, 120], weir: [200, 180], microsocks: [60] } }), load);
  // The cheapest proxy is microsocks at 60 µs; node-socks5's client takes median(10, 40) = 25 µs.
  assert.equal(summary.rate_cpu.peers['node-socks5']?.load, { client: 25 / 60, origin: 5 / 60, clientCores: 0.5, originCores: 0.1 });
  assert.equal(summary.rate_cpu.peers.weir?.load, { client: 15 / 60, origin: 5 / 60, clientCores: 0.3, originCores: 0.1 });
  assert.is(summary.rate_cpu.peers.microsocks?.load, null);
  assert.is(summary.idle.peers.weir, undefined);
  const row = formatTable(summary).split('\n').find((l) => l.includes('weir')) ?? '';
  assert.match(row, /0\.25\/0\.08\s+0\.30\/0\.10\s+≤1\.6×\s+MISS$/);
  assert.match(formatLoadNotes(summary), /over a third: proxy CPU per short connection, node-socks5: load 0\.42\/0\.08/);
  // weir's client at 15 µs is a quarter of the cheapest: no line.
  assert.not.match(formatLoadNotes(summary), /over a third: [^\n]*weir/);
});

test('a round in which the load client or origin of weir or the relay saturated a core refuses the verdict', () => {
  const load = emptyLoadSamples();
  load.stream['node-socks5-malloc'] = [light, light];
  load.stream.weir = [light, { ...light, originCores: 0.95 }];
  load.rate.weir = [light, light];
  load.rate.dante = [{ ...light, clientCores: 1 }];
  const summary = summarize(
    samples({
      throughput: { 'node-socks5-malloc': [5, 5], weir: [5, 5] },
      rate_cpu: { 'node-socks5': [100, 100], weir: [100, 100], dante: [300] },
    }),
    load,
  );
  assert.equal(summary.throughput.weir, { target: '≥0.95× node-socks5-malloc', pass: null, why: ['round 2 weir: the load origin used 95% of a core'] });
  // A saturated run of another peer leaves weir's verdict alone.
  assert.equal(summary.rate_cpu.weir, { target: '≤1.6×', pass: true, why: [] });
  assert.match(formatTable(summary), /≥0\.95× node-socks5-malloc\s+NONE/);
  assert.match(formatLoadNotes(summary), /no verdict on one stream, 1 MiB writes: round 2 weir: the load origin used 95% of a core/);
});

test.run();
