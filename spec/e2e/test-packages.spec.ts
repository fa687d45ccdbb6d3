import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findBinary } from '../support/find-binary.js';
import { tempDir } from '../support/temp-dir.js';

/** .ci/test-packages of the checkout, reached from this compiled file (dist/spec/e2e). */
const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '.ci', 'test-packages');

function check(env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('/bin/bash', [SCRIPT, '--check'], { env }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
}

test('with every package installed the check says nothing and exits 0', async () => {
  assert.equal(await check(process.env), { code: 0, stdout: '', stderr: '' });
});

test('a missing package is named in one line that says what to install, exit 1', async () => {
  // A PATH with curl and redis-server only; danted is found in /usr/sbin, where Debian puts it.
  const bin = tempDir('weir-packages-');
  for (const name of ['curl', 'redis-server']) fs.symlinkSync(findBinary(name)!, path.join(bin, name));
  assert.ok(fs.existsSync('/usr/sbin/danted'), 'dante-server is installed');
  assert.equal(await check({ PATH: bin }), {
    code: 1,
    stdout: '',
    stderr: 'make test needs Debian packages that are missing: sudo apt-get install microsocks tinyproxy strace systemd prometheus chromium openssl redis-tools\n',
  });
});

test.run();
