import type { ControlOps } from '../../actors/control/control-ops.js';
import { ClashError } from './clash-errors.js';

/** The Selector mihomo always has: the outbound of global mode. */
export const GLOBAL = 'GLOBAL';

export type ClashMode = 'rule' | 'global' | 'direct';

/**
 * Clash's three modes over weir's two: `global` and `direct` are both weir's global
 * mode, `direct` with a direct outbound as the target. The GLOBAL selector's choice is
 * weir's global target; chosen in rule mode, it is kept for the next switch to global.
 * Every change goes through ControlOps.setMode, as `weir mode` does.
 */
export class GlobalChoice {
  private chosen: string | null = null;

  constructor(private readonly ops: ControlOps) {}

  /** False when the config has an outbound tagged GLOBAL: that one stands in for it, as in mihomo. */
  synthetic(): boolean {
    return !this.ops.routing().outbounds.some((o) => o.tag === GLOBAL);
  }

  mode(): ClashMode {
    const { mode, global_target } = this.ops.mode();
    if (mode === 'rule') return 'rule';
    return this.isDirect(global_target) ? 'direct' : 'global';
  }

  modes(): ClashMode[] {
    return this.firstDirect() === undefined ? ['rule', 'global'] : ['rule', 'global', 'direct'];
  }

  /** GLOBAL's `now`: the target while in global mode, else what global mode would use. */
  now(): string {
    const { mode, global_target } = this.ops.mode();
    if (mode === 'global' && global_target && this.mode() === 'global') return global_target;
    const { route } = this.ops.routing();
    return this.chosen ?? route.global_target ?? route.final;
  }

  /** PUT /proxies/GLOBAL: takes effect at once in global mode, else at the next switch. */
  select(member: string): void {
    if (!this.ops.routing().outbounds.some((o) => o.tag === member)) {
      throw new ClashError(400, `Selector update error: no outbound "${member}"`);
    }
    if (this.mode() === 'global') this.ops.setMode('global', member);
    this.chosen = member;
  }

  /** PATCH /configs `mode`, in any case (yacd sends "Global"). */
  setMode(requested: string): void {
    const mode = requested.toLowerCase();
    // Leaving global mode keeps its target as GLOBAL's choice for the way back.
    if (this.mode() === 'global') this.chosen = this.now();
    if (mode === 'rule') this.ops.setMode('rule');
    else if (mode === 'global') this.ops.setMode('global', this.now());
    else if (mode === 'direct') {
      const direct = this.firstDirect();
      if (direct === undefined) throw new ClashError(400, 'mode direct needs an outbound of type direct');
      this.ops.setMode('global', direct);
    } else throw new ClashError(400, `mode must be one of ${this.modes().join(', ')}`);
  }

  private firstDirect(): string | undefined {
    return this.ops.routing().outbounds.find((o) => o.type === 'direct')?.tag;
  }

  private isDirect(tag: string | null): boolean {
    return this.ops.routing().outbounds.some((o) => o.tag === tag && o.type === 'direct');
  }
}
