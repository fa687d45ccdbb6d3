import * as assert from 'uvu/assert';
import { promtool, samples } from './prometheus.js';

/** A scrape of `url` (the key as a Bearer header when given), checked by promtool: its samples. */
export async function scrapeChecked(url: string, key?: string): Promise<Map<string, number>> {
  const res = await fetch(url, { headers: key === undefined ? {} : { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  assert.is(res.status, 200, text);
  assert.is(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  const checked = await promtool(text);
  assert.is(checked.code, 0, checked.output);
  return samples(text);
}
