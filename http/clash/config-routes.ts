import { Router } from 'express';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { bodyFields, readable, write, type NamedParamsRequest } from '../auth/route-scope.js';
import { clashFace } from './clash-auth.js';
import { BODY_INVALID, ClashError } from './clash-errors.js';
import type { GlobalChoice } from './global-choice.js';
import { clashLevelOf, clashLevelParam, weirLevelOf } from './log-lines.js';

/** mihomo's port fields for the first inbound of each weir protocol (0: none). */
const PORT_FIELD: Record<string, string> = { http: 'port', socks: 'socks-port', mixed: 'mixed-port' };

interface InboundView {
  protocol: string;
  listen: { port: number } | null;
}

function generalConfig(ops: ControlOps, global: GlobalChoice): Record<string, unknown> {
  const ports: Record<string, number> = { port: 0, 'socks-port': 0, 'redir-port': 0, 'tproxy-port': 0, 'mixed-port': 0 };
  for (const inbound of ops.runtime()['inbounds'] as InboundView[]) {
    const field = PORT_FIELD[inbound.protocol];
    if (field && ports[field] === 0 && inbound.listen) ports[field] = inbound.listen.port;
  }
  return {
    ...ports,
    'allow-lan': false,
    'bind-address': '127.0.0.1',
    mode: global.mode(),
    'mode-list': global.modes(),
    'log-level': clashLevelOf(ops.logLevel()),
    ipv6: true,
    tun: { enable: false },
  };
}

/** A PATCH body's string field, or undefined when absent; any other type is refused. */
function stringField(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ClashError(400, BODY_INVALID);
  return value;
}

/**
 * `GET /configs` and `PATCH /configs`: the mode (through ControlOps.setMode, as `weir
 * mode`) and the log level (as `PUT /api/v1/log-level`); other keys the dashboards
 * send (ports, allow-lan, tun...) are accepted and left alone, as weir has no such switch.
 */
export function configRoutes(ops: ControlOps, global: GlobalChoice): Router {
  const face = clashFace(ops.audit);
  const r = Router();
  r.get('/configs', readable(), (_req, res) => {
    res.json(generalConfig(ops, global));
  });
  const patched = (req: NamedParamsRequest): Record<string, unknown> => ({ mode: bodyFields(req.body)['mode'], log_level: bodyFields(req.body)['log-level'] });
  r.patch('/configs', ...write(face, 'configs.patch', patched, (req, res) => {
    const body: unknown = req.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ClashError(400, BODY_INVALID);
    const fields = body as Record<string, unknown>;
    const mode = stringField(fields, 'mode');
    const levelText = stringField(fields, 'log-level');
    const level = levelText === undefined ? undefined : clashLevelParam(levelText.toLowerCase());
    if (mode !== undefined) global.setMode(mode);
    if (level !== undefined) ops.setLogLevel(weirLevelOf(level));
    res.status(204).end();
  }));
  // Reloading from a YAML payload or path is mihomo's; weir reloads with `weir reload` or config.apply.
  r.put('/configs', ...write(face, 'config.reload', () => ({}), () => {
    throw new ClashError(400, 'weir takes no Clash config; use weir reload or POST /api/v1/config/apply');
  }));
  return r;
}
