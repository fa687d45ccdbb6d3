import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseOpenFilesLimit } from '../../../actors/process/open-files-limit.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             63431                63431                processes
Max open files            20000                40000                files
Max locked memory         8388608              8388608              bytes
`;

test('the soft limit of open files is read from /proc/<pid>/limits', () => {
  assert.is(parseOpenFilesLimit(LIMITS), 20000);
});

test('unlimited or missing gives null', () => {
  assert.is(parseOpenFilesLimit(LIMITS.replace('20000', 'unlimited')), null);
  assert.is(parseOpenFilesLimit('Limit Soft Hard Units\nMax processes 1 1 processes\n'), null);
});

test.run();
