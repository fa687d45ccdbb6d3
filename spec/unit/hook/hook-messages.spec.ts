import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hookRequestLine, parseHookAnswer } from '../../../actors/hook/hook-messages.js';

test('a question is one JSON line with its id first', () => {
  const line = hookRequestLine(7, {
    flow_id: 'f-1',
    network: 'tcp',
    inbound: { tag: 'socks-in', protocol: 'socks' },
    source: { ip: '127.0.0.1', port: 40000, process_name: 'curl' },
    target: { host: '192.0.2.1', port: 443, sniffed_host: 'example.test' },
    auth: { scheme: 'socks5', principal_key: 'alice' },
  });
  assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'));
  assert.equal(JSON.parse(line), {
    id: 7,
    flow_id: 'f-1',
    network: 'tcp',
    inbound: { tag: 'socks-in', protocol: 'socks' },
    source: { ip: '127.0.0.1', port: 40000, process_name: 'curl' },
    target: { host: '192.0.2.1', port: 443, sniffed_host: 'example.test' },
    auth: { scheme: 'socks5', principal_key: 'alice' },
  });
});

test('parses the three answers', () => {
  assert.equal(parseHookAnswer('{"id":1,"action":"allow"}'), { id: 1, verdict: { action: 'allow' } });
  assert.equal(parseHookAnswer('{"action":"deny","id":2,"note":"x"}'), { id: 2, verdict: { action: 'deny' } });
  assert.equal(parseHookAnswer('{"id":3,"action":"route","outbound":"hop-a"}'), { id: 3, verdict: { action: 'route', outbound: 'hop-a' } });
});

test('says why a line is not an answer, with the id when it has one', () => {
  assert.equal(parseHookAnswer('allow'), { id: null, error: 'not JSON' });
  assert.equal(parseHookAnswer('[1]'), { id: null, error: 'no integer "id"' });
  assert.equal(parseHookAnswer('null'), { id: null, error: 'not a JSON object' });
  assert.equal(parseHookAnswer('{"id":"1","action":"allow"}'), { id: null, error: 'no integer "id"' });
  assert.equal(parseHookAnswer('{"id":4,"action":"route"}'), { id: 4, error: '"route" without an "outbound" tag' });
  assert.equal(parseHookAnswer('{"id":5,"action":"maybe"}'), { id: 5, error: 'unknown action "maybe"' });
});

test.run();
