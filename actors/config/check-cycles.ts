import type { ConfigProblem } from './problems.js';
import type { PartView, TagRef } from './reference-view.js';

interface Step {
  part: PartView;
  /** The reference being followed out of this part. */
  edge: TagRef | undefined;
}

/**
 * Finds loops between groups and chains (`"proxy" -> "auto" -> "proxy"`) by depth-first
 * search; each loop is reported at the reference that leaves its first part.
 */
export function findCycles(outbounds: readonly PartView[]): ConfigProblem[] {
  const byTag = new Map<string, PartView>();
  for (const o of outbounds) if (!byTag.has(o.tag)) byTag.set(o.tag, o);
  const state = new Map<string, 'on-trail' | 'done'>();
  const trail: Step[] = [];
  const problems: ConfigProblem[] = [];

  const report = (back: PartView): void => {
    const loop = trail.slice(trail.findIndex((s) => s.part.tag === back.tag));
    const tags = [...loop.map((s) => s.part.tag), back.tag].map((t) => JSON.stringify(t));
    problems.push({ path: loop[0]?.edge?.path ?? back.path, message: `reference cycle ${tags.join(' -> ')}` });
  };

  const visit = (part: PartView): void => {
    state.set(part.tag, 'on-trail');
    const step: Step = { part, edge: undefined };
    trail.push(step);
    for (const ref of part.refs) {
      step.edge = ref;
      const next = byTag.get(ref.tag);
      if (next === undefined) continue;
      const seen = state.get(next.tag);
      if (seen === 'on-trail') report(next);
      else if (seen === undefined) visit(next);
    }
    trail.pop();
    state.set(part.tag, 'done');
  };

  for (const part of byTag.values()) if (!state.has(part.tag)) visit(part);
  return problems;
}
