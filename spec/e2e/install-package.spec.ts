import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCommand } from '../support/run-command.js';
import { tempDir } from '../support/temp-dir.js';

/** The checkout: dist/spec/e2e is three levels below it. */
const CHECKOUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The secrets examples/personal.json reads from the environment. */
const EXAMPLE_ENV = { WEIR_API_KEY: 'install-spec-api-key', WEIR_PROXY_PASSWORD: 'install-spec-proxy-password' };

test('npm pack of the checkout installs with npm install -g, and its weir bin runs', async () => {
  const dir = tempDir('weir-install-');
  // The spec runs from the built dist/: the prepack build is skipped here.
  const pack = await runCommand('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: CHECKOUT, timeoutMs: 30_000 });
  assert.is(pack.code, 0, pack.stderr);
  const [packed] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  const files = packed!.files.map((f) => f.path);
  assert.ok(files.includes('bin/weir') && files.includes('dist/cli/weir.js'), 'the weir command and the built CLI are packed');
  assert.ok(files.includes('examples/personal.json') && files.includes('schema/weir.schema.json'));
  assert.equal(files.filter((f) => f.startsWith('dist/spec/') || f.endsWith('.ts') || f.endsWith('.map')), [], 'no specs, sources or source maps');

  const prefix = path.join(dir, 'prefix');
  const install = await runCommand('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', path.join(dir, packed!.filename)], {
    cwd: dir,
    timeoutMs: 90_000,
  });
  assert.is(install.code, 0, install.stderr);
  const weir = path.join(prefix, 'bin', 'weir');
  assert.ok(fs.existsSync(weir), 'the weir bin is linked into the prefix');

  const version = await runCommand(weir, ['--version'], { timeoutMs: 15_000 });
  assert.is(version.code, 0, version.stderr);
  const { version: packageVersion } = JSON.parse(fs.readFileSync(path.join(CHECKOUT, 'package.json'), 'utf8')) as { version: string };
  assert.match(version.stdout.trim(), new RegExp(`^${packageVersion.replace(/\./g, '\\.')}\\+([0-9a-f]{12}|unknown)$`));
  const validate = await runCommand(weir, ['validate', path.join(CHECKOUT, 'examples', 'personal.json')], { env: EXAMPLE_ENV, timeoutMs: 15_000 });
  assert.is(validate.code, 0, validate.stdout + validate.stderr);
  assert.match(validate.stdout, /personal\.json: valid\n$/);
});

test.run();
