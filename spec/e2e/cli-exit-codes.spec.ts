import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EXIT } from '../../cli/exit-codes.js';
import { cliFixture } from '../support/cli-fixture.js';
import { tempDir } from '../support/temp-dir.js';
import { runWeir, WEIR_BIN } from '../support/weir-bin.js';

const setup = cliFixture(test);
const README = path.join(path.dirname(path.dirname(WEIR_BIN)), 'README.md');

/** The README's exit code table, code to meaning. */
function readmeExitCodes(): Map<number, string> {
  const rows = [...fs.readFileSync(README, 'utf8').matchAll(/^\| (\d) \| ([^|]+) \|$/gm)];
  return new Map(rows.map((m) => [Number(m[1]), m[2]!.trim()]));
}

test('the README lists exactly the exit codes cli/exit-codes.ts defines', () => {
  assert.equal([...readmeExitCodes().keys()].sort(), Object.values(EXIT).sort());
});

test('every exit code is met as a user meets it', async () => {
  const { weir } = await setup();
  const none = path.join(tempDir('weir-exit-'), 'none.sock');
  const broken = path.join(tempDir('weir-exit-'), 'broken.json');
  fs.writeFileSync(broken, '{ "inbounds": [ { "type": "socks5", "tag": 7 } ] }');
  const walk: [number, string[], Promise<{ code: number | null; stderr: string }>][] = [
    [EXIT.ok, ['build-info'], runWeir(['build-info'])],
    [EXIT.failure, ['validate', broken], runWeir(['validate', broken])],
    [EXIT.usage, ['flows', '--limit', 'abc'], runWeir(['flows', '--limit', 'abc', '--ipc', none])],
    [EXIT.usage, ['flows', '--after', '1.5'], runWeir(['flows', '--after', '1.5', '--ipc', none])],
    [EXIT.usage, ['frobnicate'], runWeir(['frobnicate'])],
    [EXIT.unreachable, ['status', '--ipc', none], runWeir(['status', '--ipc', none])],
    [EXIT.refused, ['select', 'proxy', 'nowhere'], weir('select', 'proxy', 'nowhere')],
  ];
  for (const [code, args, result] of walk) {
    const { code: got, stderr } = await result;
    assert.is(got, code, `${args.join(' ')}: ${stderr}`);
  }
  const usage = await runWeir(['flows', '--limit', 'abc', '--ipc', none]);
  assert.is(usage.stderr, 'weir: --limit takes a whole number\n');
});

test.run();
