import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LeasedOutbox } from '../../../actors/contracts/outbox.js';
import { JournalOutboxStore } from '../../../actors/outbox/journal-outbox-store.js';
import { leaseDrain } from './lease-drain.js';
import { leasedOutboxContract } from './leased-outbox-contract.js';
import { outboxContract, type OutboxBacking } from './outbox-contract.js';

async function backing(): Promise<OutboxBacking<LeasedOutbox>> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-journal-'));
  return {
    open: async (limits) => new JournalOutboxStore({ stateDir, limits: limits! }),
    dispose: async () => fs.rmSync(stateDir, { recursive: true, force: true }),
    drain: leaseDrain,
  };
}

outboxContract('embedded (journal)', backing);
leasedOutboxContract('embedded (journal)', backing);
