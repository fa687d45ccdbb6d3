import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../support/temp-dir.js';
import { runWeir } from '../support/weir-bin.js';

const dir = tempDir('weir-json-errors-');

/** A config whose only fault is the comma after the last inbound. */
const TRAILING_COMMA = `{
  "control": { "api_key": "json-errors-key-not-a-secret" },
  "inbounds": [
    { "type": "socks", "tag": "socks-in", "port": 1080 },
  ]
}
`;
const WHERE = "is not valid JSON (line 4, column 57: a trailing comma before ']' (JSON allows none))";

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

test('weir validate names the line and column of a trailing comma', async () => {
  const file = write('trailing.json', TRAILING_COMMA);
  const result = await runWeir(['validate', file]);
  assert.equal([result.code, result.stdout], [1, '']);
  assert.is(result.stderr, `${file}: invalid configuration (1 problem)\n  ${file} ${WHERE}\n`);
});

test('weir validate --json gives the same message as its one problem', async () => {
  const file = write('trailing-json.json', TRAILING_COMMA);
  const result = await runWeir(['validate', '--json', file]);
  assert.is(result.code, 1);
  assert.equal(JSON.parse(result.stdout), { valid: false, problems: [{ path: '', message: `${file} ${WHERE}` }] });
});

test('weir run refuses the file with the same position', async () => {
  const file = write('trailing-run.json', TRAILING_COMMA);
  const result = await runWeir(['run', file]);
  assert.equal([result.code, result.stdout], [1, '']);
  assert.is(result.stderr, `${file}: invalid configuration (1 problem)\n  ${file} ${WHERE}\n`);
});

test('a client command given the file with -c still looks for the node, and names the position when none answers', async () => {
  const file = write('trailing-client.json', TRAILING_COMMA);
  const result = await runWeir(['status', '-c', file]);
  const socket = path.join(dir, 'state', 'weir.sock');
  assert.equal(
    [result.code, result.stderr],
    [3, `weir: the node is not running (no IPC socket at ${socket}; a node started with a config file: add -c FILE, or --ipc PATH)\n${file} ${WHERE}; only its state_dir and ipc were looked for\n`],
  );
});

test('an early end of the file has its position, and the secret before it is not quoted', async () => {
  const file = write('cut.json', '{\n  "control": { "api_key": "cut-secret-value"');
  const result = await runWeir(['validate', file]);
  assert.is(result.code, 1);
  assert.ok(result.stderr.includes(`${file} is not valid JSON (line 2, column 45: the file ends where ',' or '}' is expected)`), result.stderr);
  assert.not.ok(result.stderr.includes('cut-secret-value'));
});

test.run();
