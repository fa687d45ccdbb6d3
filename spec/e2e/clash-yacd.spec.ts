import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { ofType, waitForEvents } from '../support/jsonl.js';
import { serveStatic, type StaticSite } from '../support/static-site.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { CLASH_KEY, clashFixture, type ClashSetup } from '../support/clash-fixture.js';
import { loudBefore } from '../support/loud-before.js';

// The built yacd (a real Clash dashboard) in headless Chromium against a real `weir
// run` with real traffic: what a person would see and do on its pages.

/** The repository's root, from dist/spec/e2e/. */
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
/** shared/ sits beside the repository (here and in CI). */
const YACD = path.join(REPO, '..', 'shared', 'dashboards', 'yacd');
const ARTIFACTS = path.join(REPO, '.artifacts', 'clash-yacd');
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const setup = clashFixture(test);
let site: StaticSite;
let browser: BrowserContext;
let page: Page;

loudBefore(test, async () => {
  if (!fs.existsSync(path.join(YACD, 'index.html'))) throw new Error(`no built yacd at ${YACD}`);
  site = await serveStatic(YACD);
  // A fresh profile: the site registers a service worker and keeps its backend in localStorage.
  browser = await chromium.launchPersistentContext(tempDir('weir-yacd-'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  const { controlPort } = await setup();
  // yacd takes the backend from the query once and keeps it.
  await page.goto(`${site.url}/?hostname=127.0.0.1&port=${controlPort}&secret=${CLASH_KEY}`);
  await page.getByText('Upload Total').waitFor({ timeout: WAIT_MS });
});

test.after(async () => {
  await browser?.close();
  await site?.close();
});

/** Runs a test's steps; on failure the page is saved as a screenshot under .artifacts/ first. */
function seen(name: string, steps: (s: ClashSetup) => Promise<void>): void {
  test(name, async () => {
    try {
      await steps(await setup());
    } catch (err) {
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await page?.screenshot({ path: path.join(ARTIFACTS, `${name.replace(/[^a-z0-9]+/gi, '-')}.png`), fullPage: true }).catch(() => undefined);
      throw err;
    }
  });
}

async function open(hashPath: string): Promise<void> {
  await page.goto(`${site.url}/#${hashPath}`);
}

/** The connections table's row of the live download (its Host cell is `localhost:<origin port>`). */
function downloadRow(s: ClashSetup) {
  return page.locator('tr').filter({ has: page.locator('td', { hasText: `localhost:${s.origin.port}` }) });
}

/** A fetch through the node; the completed flow's record. */
async function flowThrough(s: ClashSetup, label: string) {
  const known = knownFlows(s.events);
  await curl([...s.via, s.origin.url(`/bytes/10?case=${label}`)]);
  return recordOf((await nextFlow(s.events, known)).completed);
}

seen('the connections page lists the live flow with its host and byte counts', async (s) => {
  const download = s.liveDownload('yacd-list');
  try {
    await open('/connections');
    const row = downloadRow(s);
    await row.waitFor({ timeout: WAIT_MS });
    // Cells: Host, DL, UL, DL Speed, UL Speed, Chains, Rule, Time, Source, Destination IP, Type.
    const moving = await waitFor(
      async () => {
        const cells = await row.locator('td').allInnerTexts();
        return /^[1-9][\d.]* (B|KB|MB)$/.test(cells[1] ?? '') ? cells : null;
      },
      WAIT_MS,
      'the row counting downloaded bytes',
    );
    assert.match(moving[2]!, /^[1-9][\d.]* (B|KB)$/, 'bytes up');
    assert.equal([moving[0], moving[5], moving[6], moving[9], moving[10]], [`localhost:${s.origin.port}`, 'proxy / direct', 'Match', '127.0.0.1', 'Mixed(tcp)']);
    assert.match(moving[8]!, /^127\.0\.0\.1:\d+$/);
  } finally {
    download.stop();
    await download.done;
  }
});

seen('closing the connections from the page ends the flow: cancelled, close_reason manual', async (s) => {
  const download = s.liveDownload('yacd-close');
  await open('/connections');
  const row = downloadRow(s);
  await row.waitFor({ timeout: WAIT_MS });
  const flowId = await waitFor(() => s.call('/connections').then((r) => r.json.connections[0]?.id as string | undefined), WAIT_MS, 'the flow id');
  // yacd closes from its floating menu, then asks to be sure.
  await page.getByTestId('main-button').hover();
  await page.getByTestId('action-button-0').click();
  await page.getByText("I'm sure").click();
  const all = await waitForEvents(s.events, (es) => ofType(es, 'flow.completed').some((e) => e.payload['flow_id'] === flowId));
  const completed = ofType(all, 'flow.completed').find((e) => e.payload['flow_id'] === flowId)!;
  assert.equal([completed.payload['outcome'], completed.payload['close_reason']], ['cancelled', 'manual']);
  await row.waitFor({ state: 'detached', timeout: WAIT_MS });
  await download.done;
});

seen('the proxies page shows the selector; picking a member routes the next flow through it', async (s) => {
  await open('/proxies');
  const group = page.locator('h2', { has: page.locator('span', { hasText: /^proxy$/ }) });
  await group.waitFor({ timeout: WAIT_MS });
  assert.equal(await group.locator('span').allInnerTexts(), ['proxy', 'Selector']);
  await group.click();
  const member = (name: string) => page.locator('[role="menuitem"]').filter({ has: page.locator('span', { hasText: new RegExp(`^${name}$`) }) });
  await member('block').click();
  await waitFor(async () => (await member('block').getAttribute('class'))?.includes('_now_'), WAIT_MS, 'block shown as chosen');
  // yacd shows the choice before its PUT is answered.
  await waitFor(async () => (await s.call('/proxies/proxy')).json.now === 'block', WAIT_MS, 'the node on block');
  const blocked = await flowThrough(s, 'yacd-block');
  assert.equal([blocked.route.selection_chain, blocked.result?.outcome], [['proxy', 'block'], 'blocked']);

  await member('direct').click();
  await waitFor(async () => (await member('direct').getAttribute('class'))?.includes('_now_'), WAIT_MS, 'direct shown as chosen');
  await waitFor(async () => (await s.call('/proxies/proxy')).json.now === 'direct', WAIT_MS, 'the node on direct');
  const relayed = await flowThrough(s, 'yacd-direct');
  assert.equal([relayed.route.selection_chain, relayed.result?.outcome], [['proxy', 'direct'], 'direct_relayed']);
});

seen('the mode switch on the config page routes the next flow by that mode', async (s) => {
  await open('/configs');
  const mode = page.locator('div', { has: page.locator('div', { hasText: /^Mode$/ }) }).locator('select').first();
  await mode.waitFor({ timeout: WAIT_MS });
  await mode.selectOption('Global');
  await waitFor(async () => (await s.call('/configs')).json.mode === 'global', WAIT_MS, 'mode global');
  const global = await flowThrough(s, 'yacd-global');
  assert.equal([global.route.mode, global.route.target, global.route.matched_rule], ['global', 'proxy', { index: -1, condition: 'global' }]);

  await mode.selectOption('Direct');
  await waitFor(async () => (await s.call('/configs')).json.mode === 'direct', WAIT_MS, 'mode direct');
  assert.is((await flowThrough(s, 'yacd-direct-mode')).route.target, 'direct');

  await mode.selectOption('Rule');
  await waitFor(async () => (await s.call('/configs')).json.mode === 'rule', WAIT_MS, 'mode rule');
  const rule = await flowThrough(s, 'yacd-rule');
  assert.equal([rule.route.mode, rule.route.matched_rule], ['rule', { index: -1, condition: 'final' }]);
});

test.run();
