import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../support/temp-dir.js';
import { runWeir } from '../support/weir-bin.js';

const dir = tempDir('weir-format-');

/** A valid config with its keys in no particular order, on one line. */
const SCRAMBLED = {
  outbounds: [
    { tag: 'direct', type: 'direct' },
    { default: 'direct', members: ['direct', 'block'], tag: 'proxy', type: 'selector' },
    { type: 'block', tag: 'block' },
  ],
  route: { final: 'proxy', rules: [{ outbound: 'block', domain_suffix: ['ads.test'] }] },
  inbounds: [{ port: 1080, users: [{ password: { env: 'WEIR_FORMAT_UNSET' }, username: 'me' }], tag: 'socks-in', type: 'socks' }],
  control: { api_key: 'format-key-not-a-secret', listen: '127.0.0.1:0' },
  node: { state_dir: './state', id: 'fmt' },
  $schema: '../schema/weir.schema.json',
};

/** The same config as the schema orders it. */
const CANONICAL = {
  $schema: '../schema/weir.schema.json',
  node: { id: 'fmt', state_dir: './state' },
  control: { listen: '127.0.0.1:0', api_key: 'format-key-not-a-secret' },
  inbounds: [{ type: 'socks', tag: 'socks-in', port: 1080, users: [{ username: 'me', password: { env: 'WEIR_FORMAT_UNSET' } }] }],
  outbounds: [
    { type: 'direct', tag: 'direct' },
    { type: 'selector', tag: 'proxy', members: ['direct', 'block'], default: 'direct' },
    { type: 'block', tag: 'block' },
  ],
  route: { rules: [{ domain_suffix: ['ads.test'], outbound: 'block' }], final: 'proxy' },
};
const CANONICAL_TEXT = `${JSON.stringify(CANONICAL, null, 2)}\n`;

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

test('format prints the config with keys in schema order and 2-space indent, and leaves the file as it is', async () => {
  const text = JSON.stringify(SCRAMBLED);
  const file = write('print.json', text);
  // The password's variable is not set: format reads no secret.
  assert.equal(await runWeir(['format', file]), { code: 0, stdout: CANONICAL_TEXT, stderr: '' });
  assert.is(fs.readFileSync(file, 'utf8'), text);
});

test('format -w writes the canonical form back, keeping the file mode; a second run changes nothing', async () => {
  const file = write('write.json', JSON.stringify(SCRAMBLED));
  fs.chmodSync(file, 0o640);
  assert.equal(await runWeir(['format', '-w', file]), { code: 0, stdout: `${file}: formatted\n`, stderr: '' });
  assert.is(fs.readFileSync(file, 'utf8'), CANONICAL_TEXT);
  assert.is(fs.statSync(file).mode & 0o777, 0o640);
  assert.equal(await runWeir(['format', '--write', file]), { code: 0, stdout: `${file}: already in canonical form\n`, stderr: '' });
  assert.equal(fs.readdirSync(dir).filter((f) => f.startsWith('write.json')), ['write.json']);
});

test('format refuses an invalid config with the messages of validate and writes nothing', async () => {
  const cases = {
    'trailing.json': '{ "outbounds": [ { "type": "direct", "tag": "direct" }, ] }',
    // No secret to read: validate's messages are then those of format, which reads none.
    'unknown-tag.json': JSON.stringify({ ...SCRAMBLED, inbounds: [{ type: 'socks', tag: 'socks-in', port: 1080 }], route: { final: 'nowhere' } }),
  };
  for (const [name, text] of Object.entries(cases)) {
    const file = write(name, text);
    const validate = await runWeir(['validate', file]);
    const format = await runWeir(['format', '-w', file]);
    assert.equal([format.code, format.stdout], [1, ''], name);
    assert.is(format.stderr, validate.stderr, name);
    assert.match(format.stderr, /invalid configuration/);
    assert.is(fs.readFileSync(file, 'utf8'), text, name);
  }
});

test('format without a file, or with two, is a usage error (exit 2)', async () => {
  for (const args of [['format'], ['format', 'a.json', 'b.json']]) {
    const result = await runWeir(args);
    assert.equal([result.code, result.stderr], [2, 'weir: usage: weir format [-w] <config_file>\n'], args.join(' '));
  }
});

test.run();
