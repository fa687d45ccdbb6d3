import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCommand } from '../support/run-command.js';
import { tempDir } from '../support/temp-dir.js';
import { WEIR_BIN } from '../support/weir-bin.js';

const CHECKOUT = path.dirname(path.dirname(WEIR_BIN));

/**
 * `npm pack` on a fresh clone, as a newcomer runs it: no node_modules, no dist. The
 * prepack installs and builds (npm's cache serves the packages), and stamps the build.
 */
test('npm pack works on a clean clone and the packed weir knows its commit', async () => {
  const dir = tempDir('weir-clone-');
  const clone = path.join(dir, 'weir');
  const cloned = await runCommand('git', ['clone', '--quiet', '--no-local', CHECKOUT, clone], { timeoutMs: 60_000 });
  assert.is(cloned.code, 0, cloned.stderr);
  const head = (await runCommand('git', ['rev-parse', 'HEAD'], { cwd: clone, timeoutMs: 10_000 })).stdout.trim();
  const pack = await runCommand('npm', ['pack', '--prefer-offline', '--pack-destination', dir], { cwd: clone, timeoutMs: 300_000 });
  assert.is(pack.code, 0, pack.stderr);
  const tarball = fs.readdirSync(dir).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, `npm pack wrote no tarball: ${pack.stdout}`);
  const stamp = await runCommand('tar', ['-xzOf', path.join(dir, tarball), 'package/dist/build-stamp.json'], { timeoutMs: 30_000 });
  assert.is(stamp.code, 0, `the build stamp is packed: ${stamp.stderr}`);
  assert.equal(JSON.parse(stamp.stdout), { git_hash: head, build_profile: 'release' });
  const version = await runCommand(path.join(clone, 'bin', 'weir'), ['--version'], { timeoutMs: 15_000 });
  assert.is(version.stdout.trim().split('+')[1], head.slice(0, 12));
});

test.run();
