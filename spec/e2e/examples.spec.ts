import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findBinary } from '../support/find-binary.js';
import { runWeir } from '../support/weir-bin.js';

/** examples/ of the checkout, reached from this compiled file (dist/spec/e2e). */
const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples');
const CONFIGS = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'));

// The secrets the examples read from the environment, as an operator would export them;
// given to each command, not set in this process, where later specs would inherit them.
const ENV = {
  WEIR_API_KEY: 'examples-api-key-not-a-secret',
  WEIR_PROXY_PASSWORD: 'examples-proxy-password',
  WEIR_UPSTREAM_PASSWORD: 'examples-upstream-password',
  WEIR_CUSTOMER_A_PASSWORD: 'examples-customer-password',
  WEIR_REDIS_URL: 'redis://127.0.0.1:6379/0',
  WEIR_WEBHOOK_TOKEN: 'examples-webhook-token',
};

test('examples/ holds the four example configs', () => {
  assert.equal(CONFIGS.sort(), ['chains-and-groups.json', 'dashboard.json', 'fleet-redis-webhook.json', 'personal.json']);
});

for (const name of CONFIGS) {
  test(`weir validate examples/${name} exits 0, and the file is in the form weir format writes`, async () => {
    const file = path.join(EXAMPLES, name);
    assert.equal(await runWeir(['validate', file], 30_000, ENV), { code: 0, stdout: `${file}: valid\n`, stderr: '' });
    const formatted = await runWeir(['format', file], 30_000, ENV);
    assert.equal([formatted.code, formatted.stdout], [0, fs.readFileSync(file, 'utf8')]);
  });
}

test('examples/README.md explains every file in examples/', () => {
  const readme = fs.readFileSync(path.join(EXAMPLES, 'README.md'), 'utf8');
  for (const file of fs.readdirSync(EXAMPLES).filter((f) => f !== 'README.md')) {
    assert.ok(readme.includes(`## ${file}`), `a section for ${file}`);
  }
});

test('examples/weir.service passes systemd-analyze verify, reloads with SIGHUP and outwaits the stop deadline', async () => {
  const analyze = findBinary('systemd-analyze');
  assert.ok(analyze, 'systemd-analyze is not installed (Debian package systemd)');
  const unit = path.join(EXAMPLES, 'weir.service');
  const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(analyze, ['verify', unit], (err, _stdout, stderr) => resolve({ code: typeof err?.code === 'number' ? err.code : err ? 1 : 0, stderr }));
  });
  // verify exits 0 with a misspelt key or a bad value too: it only warns on stderr.
  assert.equal(result, { code: 0, stderr: '' });
  const text = fs.readFileSync(unit, 'utf8');
  const value = (key: string): string | undefined => new RegExp(`^${key}=(.*)$`, 'm').exec(text)?.[1];
  assert.equal(
    [value('ExecReload'), value('StateDirectory'), value('NoNewPrivileges'), value('ProtectSystem'), value('ProtectHome'), value('PrivateTmp')],
    ['/bin/kill -HUP $MAINPID', 'weir', 'yes', 'strict', 'yes', 'yes'],
  );
  // The node stops within about 5 s of SIGTERM; systemd's SIGKILL must come well after.
  assert.ok(Number(value('TimeoutStopSec')) >= 10, `TimeoutStopSec=${value('TimeoutStopSec')}`);
});

test.run();
