import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliFixture } from '../support/cli-fixture.js';
import { runCommand } from '../support/run-command.js';
import { tempDir } from '../support/temp-dir.js';
import { runWeir, WEIR_BIN } from '../support/weir-bin.js';

const setup = cliFixture(test);
const CHECKOUT = path.dirname(path.dirname(WEIR_BIN));

/** The node's config text cut off after node.state_dir, as an editor's half-saved file is. */
function halfEdited(configText: string): string {
  const at = configText.indexOf('"state_dir"');
  assert.ok(at >= 0, 'the config names a state_dir');
  return `${configText.slice(0, configText.indexOf('\n', at))}\n  "inbounds": [ { "type": "mix`;
}

test('a client reaches the node while its config file is half-edited (not JSON)', async () => {
  const { node } = await setup();
  const broken = path.join(tempDir('weir-find-'), 'weir.json');
  fs.writeFileSync(broken, halfEdited(fs.readFileSync(node.configPath, 'utf8')));
  const status = await runWeir(['status', '--json', '-c', broken]);
  assert.is(status.code, 0, status.stderr);
  assert.is((JSON.parse(status.stdout) as { pid: number }).pid, node.pid);
});

test('a relative state_dir is relative to the config file, not to the cwd, for the client too', async () => {
  const { node } = await setup();
  const dir = tempDir('weir-find-');
  fs.symlinkSync(node.stateDir, path.join(dir, 'var'));
  const config = path.join(dir, 'weir.json');
  fs.writeFileSync(config, '{ "node": { "state_dir": "./var" }, "control": { "api_key": ');
  const result = await runCommand(WEIR_BIN, ['policies', '--json', '-c', config], { cwd: tempDir('weir-cwd-'), timeoutMs: 30_000 });
  assert.is(result.code, 0, result.stderr);
});

test('"not running" says how to point at the node', async () => {
  const cwd = tempDir('weir-find-');
  const result = await runCommand(WEIR_BIN, ['status'], { cwd, timeoutMs: 30_000, env: { WEIR_STATE_DIR: '' } });
  assert.equal(
    [result.code, result.stderr],
    [3, `weir: the node is not running (no IPC socket at ${path.join(fs.realpathSync(cwd), 'state', 'weir.sock')}; a node started with a config file: add -c FILE, or --ipc PATH)\n`],
  );
});

test('npm pack leaves a state dir under examples/ out', async () => {
  const copy = tempDir('weir-pack-');
  fs.copyFileSync(path.join(CHECKOUT, 'package.json'), path.join(copy, 'package.json'));
  fs.cpSync(path.join(CHECKOUT, 'examples'), path.join(copy, 'examples'), { recursive: true });
  fs.mkdirSync(path.join(copy, 'examples', 'state', 'outbox'), { recursive: true });
  for (const file of ['events.jsonl', 'api_key', 'principals.json', 'outbox/data.mdb']) fs.writeFileSync(path.join(copy, 'examples', 'state', file), 'runtime state');
  const pack = await runCommand('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: copy, timeoutMs: 60_000 });
  assert.is(pack.code, 0, pack.stderr);
  const files = (JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
  assert.ok(files.includes('examples/personal.json'), files.join(' '));
  assert.equal(files.filter((f) => f.includes('state/')), []);
});

test.run();
