import { Router } from 'express';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { logLevelBody, modeBody, replayBody, selectBody } from '../../actors/control/operation-bodies.js';
import { parseBody } from '../../actors/control/parse-body.js';

/** One endpoint per control operation; each only parses and delegates. */
export function writeRoutes(ops: ControlOps): Router {
  const r = Router();
  // 202: the flow is asked to close; its flow.completed follows on the event stream.
  r.post('/flows/:flow_id/close', (req, res) => {
    res.status(202).json(ops.closeFlow(req.params.flow_id));
  });
  r.post('/policies/:tag/select', (req, res) => {
    const { member } = parseBody(selectBody, req.body);
    res.json(ops.select(req.params.tag, member));
  });
  // Answers when the manual url_test round is done, with its policy.probe.completed payload.
  r.post('/policies/:tag/probe', async (req, res) => {
    res.json(await ops.probe(req.params.tag));
  });
  r.post('/principals/reset', async (_req, res) => {
    res.json(await ops.resetPrincipals());
  });
  r.put('/mode', (req, res) => {
    const { mode, target } = parseBody(modeBody, req.body);
    res.json(ops.setMode(mode, target));
  });
  r.put('/log-level', (req, res) => {
    const { level } = parseBody(logLevelBody, req.body);
    res.json(ops.setLogLevel(level));
  });
  // config.apply: the body's hot sections (event_sinks, route, log; or upsert_sinks / remove_sinks) all or nothing.
  r.post('/config/apply', async (req, res) => {
    res.json(await ops.applyConfig(req.body));
  });
  r.post('/config/reload', async (_req, res) => {
    res.json(await ops.reload());
  });
  r.get('/sinks/:tag/dead-letters', async (req, res) => {
    res.json({ dead_letters: await ops.deadLetters(req.params.tag) });
  });
  r.post('/sinks/:tag/dead-letters/replay', async (req, res) => {
    const { ids } = parseBody(replayBody, req.body ?? {});
    res.json(await ops.replayDeadLetters(req.params.tag, ids));
  });
  return r;
}
