import { Router } from 'express';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { logLevelBody, modeBody, replayBody, selectBody } from '../../actors/control/operation-bodies.js';
import { parseBody } from '../../actors/control/parse-body.js';
import { sendProblem } from '../common/problem.js';
import { bodyFields, readable, write, type NamedParamsRequest, type RouteFace } from '../auth/route-scope.js';
import { API_PREFIX } from './api-prefix.js';

/** The request's body as the audit trail reads it: what IPC would send as fields. */
const body = (req: NamedParamsRequest): Record<string, unknown> => bodyFields(req.body);

/** One endpoint per control operation; each only parses and delegates. Writes are scoped and audited (write()). */
export function writeRoutes(ops: ControlOps): Router {
  const face: RouteFace = { transport: 'http', audit: ops.audit, refuse: sendProblem };
  const r = Router();
  // 202: the flow is asked to close; its flow.completed follows on the event stream.
  r.post(`${API_PREFIX}/flows/:flow_id/close`, ...write(face, 'flows.close', (req) => ({ flow_id: req.params.flow_id }), (req, res) => {
    res.status(202).json(ops.closeFlow(req.params.flow_id));
  }));
  r.post(`${API_PREFIX}/policies/:tag/select`, ...write(face, 'select', (req) => ({ ...body(req), selector: req.params.tag }), (req, res) => {
    const { member } = parseBody(selectBody, req.body);
    res.json(ops.select(req.params.tag, member));
  }));
  // Answers when the manual url_test round is done, with its policy.probe.completed payload.
  r.post(`${API_PREFIX}/policies/:tag/probe`, ...write(face, 'policies.probe', (req) => ({ tag: req.params.tag }), async (req, res) => {
    res.json(await ops.probe(req.params.tag));
  }));
  r.post(`${API_PREFIX}/principals/reset`, ...write(face, 'principals.reset', body, async (_req, res) => {
    res.json(await ops.resetPrincipals());
  }));
  r.put(`${API_PREFIX}/mode`, ...write(face, 'mode', body, (req, res) => {
    const { mode, target } = parseBody(modeBody, req.body);
    res.json(ops.setMode(mode, target));
  }));
  r.put(`${API_PREFIX}/log-level`, ...write(face, 'log_level', body, (req, res) => {
    const { level } = parseBody(logLevelBody, req.body);
    res.json(ops.setLogLevel(level));
  }));
  // config.apply: the body's hot sections (event_sinks, route, log; or upsert_sinks / remove_sinks) all or nothing.
  r.post(`${API_PREFIX}/config/apply`, ...write(face, 'config.apply', body, async (req, res) => {
    res.json(await ops.applyConfig(req.body));
  }));
  r.post(`${API_PREFIX}/config/reload`, ...write(face, 'config.reload', body, async (_req, res) => {
    res.json(await ops.reload());
  }));
  r.get(`${API_PREFIX}/sinks/:tag/dead-letters`, readable<{ tag: string }>(), async (req, res) => {
    res.json({ dead_letters: await ops.deadLetters(req.params.tag) });
  });
  r.post(`${API_PREFIX}/sinks/:tag/dead-letters/replay`, ...write(face, 'sinks.replay', (req) => ({ ...body(req), sink: req.params.tag }), async (req, res) => {
    const { ids } = parseBody(replayBody, req.body ?? {});
    res.json(await ops.replayDeadLetters(req.params.tag, ids));
  }));
  return r;
}
