import { Router } from 'express';
import { readable, write } from '../auth/route-scope.js';
import { clashFace } from './clash-auth.js';
import { ClashError } from './clash-errors.js';
import { delayQuery, healthyDelays } from './delay-test.js';
import { clashProxies, type ClashProxy, type ProxyViews } from './proxy-views.js';

const GROUP_TYPES: ReadonlySet<string> = new Set(['Selector', 'URLTest']);

function groups(views: ProxyViews): ClashProxy[] {
  return Object.values(clashProxies(views)).filter((p) => GROUP_TYPES.has(p.type));
}

function groupNamed(views: ProxyViews, name: string): ClashProxy {
  const group = groups(views).find((g) => g.name === name);
  if (!group) throw new ClashError(404, 'Resource not found');
  return group;
}

/**
 * Selectors and url_test groups. A url_test group's delay test is a manual round
 * (ControlOps.probe, as `weir probe`): it probes its own url, may switch the group, and
 * publishes policy.probe.completed (and policy.selected) like any round. A selector's
 * probes each member with the query's url, changing nothing.
 */
export function groupRoutes(views: ProxyViews): Router {
  const face = clashFace(views.ops.audit);
  const r = Router();
  r.get('/group', readable(), (_req, res) => {
    res.json({ proxies: groups(views) });
  });
  r.get('/group/:name', readable<{ name: string }>(), (req, res) => {
    res.json(groupNamed(views, req.params.name));
  });
  // A delay test dials (a url_test group's is a manual round): scope operate, as a probe.
  r.get('/group/:name/delay', ...write(face, 'policies.probe', (req) => ({ tag: req.params.name }), async (req, res) => {
    const query = delayQuery(req.query);
    const group = groupNamed(views, req.params.name);
    if (group.type === 'URLTest') {
      const round = await views.ops.probe(group.name);
      return void res.json(healthyDelays(round.members));
    }
    const members = await Promise.all(
      (group.all ?? []).map(async (tag) => {
        const probe = await views.ops.probeOutbound(tag, query.url, query.timeoutMs);
        views.history.record(probe, Date.now());
        return probe;
      }),
    );
    res.json(healthyDelays(members));
  }));
  return r;
}
