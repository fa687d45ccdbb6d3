import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DirectOutbound } from '../../../actors/outbounds/direct-outbound.js';
import { SelectorPolicy } from '../../../actors/outbounds/selector-policy.js';
import { UrlTestPolicy } from '../../../actors/outbounds/url-test-policy.js';
import { persistSelections } from '../../../actors/policies/persist-selections.js';
import { SelectionStore, SelectionStoreError } from '../../../actors/policies/selection-store.js';
import { outboundSet, Published } from './fixtures.js';

async function withStateDir(run: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-selections-'));
  try {
    await run(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The outbounds of one engine start: two selectors, one with a url_test member. */
function startOutbounds(members = ['a', 'b', 'auto']) {
  const proxy = new SelectorPolicy('proxy', members, 'a');
  const other = new SelectorPolicy('other', ['a', 'b'], undefined);
  const set = outboundSet([new DirectOutbound('a'), new DirectOutbound('b')], [proxy, other, new UrlTestPolicy('auto', ['a', 'b'])]);
  return { set, proxy, other };
}

test('load() of a state dir without the file gives no selections', () =>
  withStateDir((dir) => {
    assert.equal(new SelectionStore(dir).load(), {});
  }));

test('save() writes <state_dir>/selections.json with mode 0600 and leaves no temp file', () =>
  withStateDir((dir) => {
    const store = new SelectionStore(path.join(dir, 'state'));
    store.save({ proxy: 'auto' });
    store.save({ proxy: 'b', other: 'a' });
    const file = path.join(dir, 'state', 'selections.json');
    assert.is(store.file, file);
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')), { proxy: 'b', other: 'a' });
    assert.is(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.readdirSync(path.join(dir, 'state')), ['selections.json']);
    assert.equal(store.load(), { proxy: 'b', other: 'a' });
  }));

test('load() refuses a file that is not an object of tag strings', () =>
  withStateDir((dir) => {
    const store = new SelectionStore(dir);
    for (const text of ['{"proxy":', '["a"]', '{"proxy":1}']) {
      fs.writeFileSync(store.file, text);
      try {
        store.load();
        assert.unreachable(`${text} was accepted`);
      } catch (err) {
        assert.instance(err, SelectionStoreError);
        assert.is((err as SelectionStoreError).code, 'SELECTIONS_UNREADABLE');
      }
    }
  }));

test('every select is saved, and a restart restores it; a url_test member stays its tag', () =>
  withStateDir((dir) => {
    const first = startOutbounds();
    persistSelections(first.set, new SelectionStore(dir), () => {});
    first.proxy.select('auto');
    assert.equal(new SelectionStore(dir).load(), { proxy: 'auto' });
    first.other.select('b');
    assert.equal(new SelectionStore(dir).load(), { proxy: 'auto', other: 'b' });

    const second = startOutbounds();
    persistSelections(second.set, new SelectionStore(dir), () => {});
    assert.is(second.proxy.current(), 'auto');
    assert.is(second.other.current(), 'b');
    assert.equal(second.set.resolve('proxy').selection_chain, ['proxy', 'auto', 'a']);
  }));

test('choices of members no longer members, and of selectors no longer configured, are dropped', () =>
  withStateDir((dir) => {
    const store = new SelectionStore(dir);
    store.save({ proxy: 'auto', other: 'b', gone: 'a' });
    const later = startOutbounds(['a', 'b']);
    persistSelections(later.set, store, () => {});
    assert.is(later.proxy.current(), 'a', 'the default');
    assert.is(later.other.current(), 'b');
    later.proxy.select('b');
    assert.equal(store.load(), { other: 'b', proxy: 'b' });
  }));

test('an unreadable file gives engine.warning and the configured defaults', () =>
  withStateDir((dir) => {
    const store = new SelectionStore(dir);
    fs.writeFileSync(store.file, 'not json');
    const out = new Published();
    const { set, proxy } = startOutbounds();
    persistSelections(set, store, out.publish);
    assert.is(proxy.current(), 'a');
    assert.equal(out.events, [
      {
        event_type: 'engine.warning',
        payload: { code: 'selections_unreadable', message: `${store.file} is not a JSON object of tag strings` },
      },
    ]);
    proxy.select('b');
    assert.equal(store.load(), { proxy: 'b' });
  }));

test('a failed save gives engine.warning and the select still holds', () =>
  withStateDir((dir) => {
    const blocker = path.join(dir, 'file');
    fs.writeFileSync(blocker, '');
    const store = new SelectionStore(path.join(blocker, 'state'));
    const out = new Published();
    const { set, proxy } = startOutbounds();
    persistSelections(set, store, out.publish);
    proxy.select('b');
    assert.is(proxy.current(), 'b');
    assert.equal(out.ofType('engine.warning'), [
      { code: 'selections_unreadable', message: `cannot read ${store.file}: ENOTDIR` },
      { code: 'selections_unwritable', message: `cannot write ${store.file}: ENOTDIR` },
    ]);
  }));

test('the returned function stops saving', () =>
  withStateDir((dir) => {
    const { set, proxy } = startOutbounds();
    const detach = persistSelections(set, new SelectionStore(dir), () => {});
    detach();
    proxy.select('b');
    assert.equal(new SelectionStore(dir).load(), {});
  }));

test.run();
