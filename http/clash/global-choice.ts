import type { ControlOps } from '../../actors/control/control-ops.js';
import { ClashError } from './clash-errors.js';

/** The Selector mihomo always has: the outbound of global mode. */
export const GLOBAL = 'GLOBAL';

export type ClashMode = 'rule' | 'global' | 'direct';

type WeirMode = ReturnType<ControlOps['mode']>;

/**
 * Clash's three modes over weir's two: `global` and `direct` are both weir's global
 * mode, `direct` with a direct outbound as the target. The GLOBAL selector's choice is
 * weir's global target; chosen in rule mode, it is kept for the next switch to global.
 * Every change goes through ControlOps.setMode, as `weir mode` does.
 *
 * The mode a Clash client set is kept as it set it while weir's mode stays what that
 * made it: `global` whose GLOBAL is a direct outbound stays `global`, as in mihomo.
 * Once weir's mode changes otherwise (`weir mode`), it is read from weir's again.
 */
export class GlobalChoice {
  private chosen: string | null = null;
  private set: { clash: ClashMode; weir: WeirMode } | null = null;

  constructor(private readonly ops: ControlOps) {}

  /** False when the config has an outbound tagged GLOBAL: that one stands in for it, as in mihomo. */
  synthetic(): boolean {
    return !this.ops.routing().outbounds.some((o) => o.tag === GLOBAL);
  }

  mode(): ClashMode {
    const { mode, global_target } = this.ops.mode();
    if (this.set && this.set.weir.mode === mode && this.set.weir.global_target === global_target) return this.set.clash;
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
    if (this.mode() === 'global') this.apply('global', member);
    this.chosen = member;
  }

  /** PATCH /configs `mode`, in any case (yacd sends "Global"). */
  setMode(requested: string): void {
    const mode = requested.toLowerCase();
    // Leaving global mode keeps its target as GLOBAL's choice for the way back.
    if (this.mode() === 'global') this.chosen = this.now();
    if (mode === 'rule') this.apply('rule', null);
    else if (mode === 'global') this.apply('global', this.now());
    else if (mode === 'direct') {
      const direct = this.firstDirect();
      if (direct === undefined) throw new ClashError(400, 'mode direct needs an outbound of type direct');
      this.apply('direct', direct);
    } else throw new ClashError(400, `mode must be one of ${this.modes().join(', ')}`);
  }

  /** Sets weir's mode for the Clash mode `clash`, and remembers which Clash mode it stands for. */
  private apply(clash: ClashMode, target: string | null): void {
    const weir = clash === 'rule' ? this.ops.setMode('rule') : this.ops.setMode('global', target);
    this.set = { clash, weir };
  }

  private firstDirect(): string | undefined {
    return this.ops.routing().outbounds.find((o) => o.type === 'direct')?.tag;
  }

  private isDirect(tag: string | null): boolean {
    return this.ops.routing().outbounds.some((o) => o.tag === tag && o.type === 'direct');
  }
}
