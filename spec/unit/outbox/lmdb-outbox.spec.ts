import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LmdbOutboxStore } from '../../../actors/outbox/lmdb-outbox-store.js';
import { outboxContract } from './outbox-contract.js';

outboxContract('embedded (LMDB)', async () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-outbox-'));
  return {
    open: async (limits) => new LmdbOutboxStore({ stateDir, limits: limits! }),
    dispose: async () => fs.rmSync(stateDir, { recursive: true, force: true }),
  };
});
