import { Router } from 'express';
import { ControlError } from '../../actors/control/control-error.js';
import { bodyFields, readable, write } from '../auth/route-scope.js';
import { clashFace } from './clash-auth.js';
import { BODY_INVALID, ClashError } from './clash-errors.js';
import { delayOf, delayQuery } from './delay-test.js';
import { GLOBAL } from './global-choice.js';
import { clashProxies, type ClashProxy, type ProxyViews } from './proxy-views.js';

function proxyNamed(views: ProxyViews, name: string): ClashProxy {
  const proxy = clashProxies(views)[name];
  if (!proxy) throw new ClashError(404, 'Resource not found');
  return proxy;
}

/**
 * A selection as ControlOps.select (`weir select`) makes it, in mihomo's words: a tag
 * that is no selector is `Must be a Selector`, a member it does not have a
 * `Selector update error`.
 */
function select(views: ProxyViews, name: string, member: string): void {
  const proxy = proxyNamed(views, name);
  if (proxy.type !== 'Selector') throw new ClashError(400, 'Must be a Selector');
  if (name === GLOBAL && views.global.synthetic()) return views.global.select(member);
  try {
    views.ops.select(name, member);
  } catch (err) {
    if (err instanceof ControlError && err.code === 'NOT_A_MEMBER') throw new ClashError(400, `Selector update error: ${err.message}`);
    throw err;
  }
}

/** Outbounds, selectors and url_test groups as Clash proxies; express has decoded the name's percent-escapes once. */
export function proxyRoutes(views: ProxyViews): Router {
  const face = clashFace(views.ops.audit);
  const r = Router();
  r.get('/proxies', readable(), (_req, res) => {
    res.json({ proxies: clashProxies(views) });
  });
  r.get('/proxies/:name', readable<{ name: string }>(), (req, res) => {
    res.json(proxyNamed(views, req.params.name));
  });
  r.put('/proxies/:name', ...write(face, 'select', (req) => ({ selector: req.params.name, member: bodyFields(req.body)['name'] }), (req, res) => {
    const body: unknown = req.body;
    const member = typeof body === 'object' && body !== null ? (body as { name?: unknown }).name : undefined;
    if (typeof member !== 'string' || member === '') throw new ClashError(400, BODY_INVALID);
    select(views, req.params.name, member);
    res.status(204).end();
  }));
  // Unpinning is for mihomo's automatic groups; weir's url_test has no manual pin.
  r.delete('/proxies/:name', ...write(face, 'select', (req) => ({ selector: req.params.name }), (req) => {
    proxyNamed(views, req.params.name);
    throw new ClashError(400, 'weir has no fixed choice to clear');
  }));
  // A delay test dials: a probe, scope operate like POST /api/v1/policies/{tag}/probe.
  r.get('/proxies/:name/delay', ...write(face, 'proxies.delay', (req) => ({ tag: req.params.name }), async (req, res) => {
    const query = delayQuery(req.query);
    const name = req.params.name;
    proxyNamed(views, name);
    // GLOBAL is no outbound of weir's: its test is its choice's.
    const tag = name === GLOBAL && views.global.synthetic() ? views.global.now() : name;
    res.json(await delayOf(views.ops, views.history, tag, query));
  }));
  return r;
}
