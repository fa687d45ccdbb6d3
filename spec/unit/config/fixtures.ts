// The DESIGN.md example config, fresh per call so a test can change it freely.

export const EXAMPLE_ENV = { WEIR_API_KEY: 'key-0123456789abcdef', ALICE_PW: 'alice-pw', BILLING_TOKEN: 'bill-tok' };

export function designExample(): Record<string, any> {
  return {
    node: { id: 'edge-fra-1', state_dir: './state' },
    log: { level: 'info', file: './state/weir.log' },
    control: { listen: '127.0.0.1:9090', api_key: { env: 'WEIR_API_KEY' }, ipc: './state/weir.sock' },
    redis: { url: 'redis://127.0.0.1:6379' },
    inbounds: [
      {
        type: 'mixed',
        tag: 'mixed-in',
        listen: '127.0.0.1',
        port: 7890,
        users: [{ username: 'alice', password: { env: 'ALICE_PW' } }],
      },
    ],
    outbounds: [
      { type: 'direct', tag: 'direct' },
      { type: 'block', tag: 'block' },
      { type: 'socks', tag: 'hop-a', server: '127.0.0.1', port: 1080 },
      { type: 'http', tag: 'hop-b', server: '127.0.0.1', port: 3128 },
      { type: 'chain', tag: 'a-then-b', hops: ['hop-a', 'hop-b'] },
      { type: 'selector', tag: 'proxy', members: ['auto', 'hop-a', 'direct'], default: 'auto' },
      {
        type: 'url_test',
        tag: 'auto',
        members: ['hop-a', 'hop-b'],
        url: 'http://127.0.0.1:8080/generate_204',
        interval_s: 300,
        tolerance_ms: 50,
      },
    ],
    route: {
      mode: 'rule',
      rules: [
        { domain_suffix: ['ads.example'], outbound: 'block' },
        { ip_cidr: ['10.0.0.0/8'], outbound: 'direct' },
      ],
      final: 'proxy',
    },
    event_sinks: [
      { tag: 'archive', type: 'jsonl', path: './state/events.jsonl', events: ['flow.completed'] },
      {
        tag: 'billing',
        type: 'webhook',
        url: 'https://controller.example/ingest',
        token: { env: 'BILLING_TOKEN' },
        events: ['flow.completed', 'policy.selected'],
      },
    ],
  };
}

/** The smallest valid config: an API key and one outbound. */
export function minimalConfig(): Record<string, any> {
  return { control: { api_key: 'key-0123456789abcdef' }, outbounds: [{ type: 'direct', tag: 'direct' }] };
}
