import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Secret } from '../../../actors/config/secret.js';
import type { OutboundConfig } from '../../../actors/config/schema.js';
import { buildOutbounds, UnknownHopError } from '../../../actors/outbounds/build-outbounds.js';
import { ChainOutbound } from '../../../actors/outbounds/chain-outbound.js';

const CONFIGS: OutboundConfig[] = [
  { type: 'direct', tag: 'direct' },
  { type: 'chain', tag: 'a-then-b', hops: ['hop-a', 'hop-b'] },
  { type: 'socks', tag: 'hop-a', server: '127.0.0.1', port: 1080, username: 'u', password: new Secret('pw') },
  { type: 'http', tag: 'hop-b', server: 'proxy.example', port: 3128 },
];

test('builds socks, http and chain outbounds as chained leaves', () => {
  const set = buildOutbounds(CONFIGS);
  const described = ['hop-a', 'hop-b', 'a-then-b', 'direct'].map((tag) => {
    const o = set.leaf(tag)!;
    return `${o.tag}:${o.protocol}:${o.chained}`;
  });
  assert.equal(described, ['hop-a:socks:true', 'hop-b:http:true', 'a-then-b:chain:true', 'direct:direct:false']);
});

test('a chain takes its hops from the socks/http outbounds, in order, declared before or after it', () => {
  const chain = buildOutbounds(CONFIGS).leaf('a-then-b');
  assert.instance(chain, ChainOutbound);
  const hops = (chain as ChainOutbound).hops.map((h) => [h.tag, h.protocol, h.server, h.port, h.username]);
  assert.equal(hops, [
    ['hop-a', 'socks', '127.0.0.1', 1080, 'u'],
    ['hop-b', 'http', 'proxy.example', 3128, undefined],
  ]);
});

test('a chain naming a hop that is not a socks/http outbound is refused', () => {
  const configs: OutboundConfig[] = [
    { type: 'direct', tag: 'direct' },
    { type: 'chain', tag: 'bad', hops: ['direct'] },
  ];
  assert.throws(() => buildOutbounds(configs), (err: unknown) => err instanceof UnknownHopError && /hop "direct"/.test(err.message));
});

test.run();
