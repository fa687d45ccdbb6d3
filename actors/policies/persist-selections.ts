import type { BusEvent } from '../../streams/contract.js';
import type { OutboundSet } from '../outbounds/outbound-set.js';
import { SelectorPolicy } from '../outbounds/selector-policy.js';
import { SelectionStoreError, type SelectionStore, type Selections } from './selection-store.js';

/**
 * Restores the saved selector choices into `outbounds` and saves the choices again
 * after every `select`. Saved choices of selectors that no longer exist, or of members
 * that are no longer members, are dropped. A store that cannot be read or written
 * never stops the node: it gets `engine.warning` and the selectors keep working.
 * Returns the function that detaches from the selectors.
 */
export function persistSelections(
  outbounds: OutboundSet,
  store: SelectionStore,
  publish: (event: BusEvent) => void,
): () => void {
  const warn = (err: SelectionStoreError): void =>
    publish({ event_type: 'engine.warning', payload: { code: err.code.toLowerCase(), message: err.message } });

  const selectors = [...outbounds.policies.values()].filter((p): p is SelectorPolicy => p instanceof SelectorPolicy);
  // A Map, so no tag can reach Object.prototype.
  const kept = new Map<string, string>();
  const saved = loadOrWarn(store, warn);
  for (const selector of selectors) {
    const member = Object.hasOwn(saved, selector.tag) ? saved[selector.tag]! : null;
    if (member !== null && selector.members.includes(member)) {
      selector.select(member);
      kept.set(selector.tag, member);
    }
  }

  const detach = selectors.map((selector) =>
    selector.onSelect((member) => {
      kept.set(selector.tag, member);
      try {
        store.save(Object.fromEntries(kept));
      } catch (err) {
        if (!(err instanceof SelectionStoreError)) throw err;
        warn(err);
      }
    }),
  );
  return () => detach.forEach((off) => off());
}

function loadOrWarn(store: SelectionStore, warn: (err: SelectionStoreError) => void): Selections {
  try {
    return store.load();
  } catch (err) {
    if (!(err instanceof SelectionStoreError)) throw err;
    warn(err);
    return {};
  }
}
