import querystring from 'node:querystring';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FLOW_PAGE } from '../../actors/control/control-ops.js';
import { ControlError } from '../../actors/control/control-error.js';
import { integerParam, MAX_REPLAY_LIMIT, sequenceParam, streamParams, typesParam } from '../../http/common/query-params.js';
import { completedFlowsQuery, flowsState } from '../../http/routes/completed-flows.js';
import { activeFlowsQuery } from '../../http/routes/active-flows.js';
import { checkProperty } from '../support/fuzz.js';

// Any query string, parsed as Express's simple parser does (node:querystring), through
// the functions of GET /api/v1/flows, /events and the live streams: values in range,
// or BAD_REQUEST; never another throw.

const SPEC_RUNS = 5000;
const name = fc.oneof(
  fc.constantFrom('limit', 'before', 'after', 'principal', 'outbound', 'outcome', 'since_unix_ms', 'until_unix_ms', 'state', 'since', 'types', '__proto__', 'constructor'),
  fc.string({ maxLength: 6 }),
);
const value = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.bigInt({ min: -1n, max: 10n ** 20n }).map(String),
  fc.constantFrom('', '0', '1', '10000', '10001', '9007199254740991', '9007199254740992', '1e3', '0x10', ' 1', 'active', 'completed', '*', 'flow.completed,flow.nope', '%', '%zz'),
);
const query = fc.oneof(
  fc.array(fc.tuple(name, value), { maxLength: 6 }).map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')),
  fc.array(fc.tuple(name, value), { maxLength: 6 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
  fc.string({ maxLength: 80 }),
);

function refusedOrReturns(run: () => void): void {
  try {
    run();
  } catch (err) {
    assert.instance(err, ControlError);
    assert.is((err as ControlError).code, 'BAD_REQUEST');
  }
}

const inRange = (n: number | undefined, max: number): boolean => n === undefined || (Number.isSafeInteger(n) && n >= 0 && n <= max);

test('any query string gives the routes values in range or BAD_REQUEST', async () => {
  await checkProperty(
    fc.property(query, fc.option(value, { nil: undefined }), (text, lastEventId) => {
      const q = querystring.parse(text);
      refusedOrReturns(() => {
        const flows = completedFlowsQuery(q);
        assert.ok(flows.limit === undefined || (flows.limit >= 1 && flows.limit <= FLOW_PAGE.max), String(flows.limit));
        assert.ok(inRange(flows.since_unix_ms, Number.MAX_SAFE_INTEGER) && inRange(flows.until_unix_ms, Number.MAX_SAFE_INTEGER));
        assert.ok(typeof flows.before !== 'number' || inRange(flows.before, Number.MAX_SAFE_INTEGER));
      });
      refusedOrReturns(() => {
        const active = activeFlowsQuery(q);
        assert.ok(active === undefined || active.limit !== undefined || active.after !== undefined);
        assert.ok(active?.limit === undefined || (active.limit >= 1 && active.limit <= FLOW_PAGE.max), String(active?.limit));
        assert.ok(inRange(active?.after, Number.MAX_SAFE_INTEGER));
      });
      refusedOrReturns(() => assert.ok(['active', 'completed'].includes(flowsState(q))));
      refusedOrReturns(() => {
        assert.ok(inRange(sequenceParam('since', q['since']), Number.MAX_SAFE_INTEGER));
        const limit = integerParam('limit', q['limit'], { min: 1, max: MAX_REPLAY_LIMIT });
        assert.ok(limit === undefined || (limit >= 1 && limit <= MAX_REPLAY_LIMIT), String(limit));
        const types = typesParam(q['types']);
        assert.ok(types === null || types.every((t) => typeof t === 'string' && t !== '*'));
      });
      refusedOrReturns(() => {
        const s = streamParams({ types: q['types'], since: q['since'], lastEventId });
        assert.ok(s.since === null || inRange(s.since, Number.MAX_SAFE_INTEGER));
      });
    }),
    SPEC_RUNS,
  );
});

test.run();
