import { isIP, type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { BusEvent, Endpoint, FlowAuth, FlowSource, RouteMode, TagProtocol } from '../../streams/contract.js';
import type { WeirConfig } from '../config/schema.js';
import { within } from '../base/within.js';
import { ALLOW, type HookVerdict } from '../hook/hook-messages.js';
import { IpcHookClient } from '../hook/ipc-hook-client.js';
import type { ProcessInfo, ProcessLookup } from '../process/process-lookup.js';
import { peekHost } from '../sniff/peek-host.js';
import { sniffHost } from '../sniff/sniff-host.js';
import type { FlowActor } from './flow-actor.js';

export interface PreRoutingOptions {
  /** The config in force, read per flow so a hot reload applies to the next flow. */
  config: () => Pick<WeirConfig, 'route' | 'ipc_hook'>;
  /** Whether an outbound tag exists, for the hook's route overrides. */
  knows: (tag: string) => boolean;
  publish: (event: BusEvent) => void;
  log: Logger;
  /** Absent where there is no /proc to read (not Linux). */
  processes?: ProcessLookup;
}

export interface PreRouteRequest {
  inbound: TagProtocol;
  auth: FlowAuth;
  source?: FlowSource;
  target: Endpoint;
  client?: Socket;
}

export interface PreRouted {
  /** The client was told the tunnel is open before routing, to sniff its first bytes. */
  answered: boolean;
  /** Client bytes read while sniffing: the remote gets them first. */
  head: Buffer | null;
  sniffed_host?: string;
  verdict: HookVerdict;
  /** For the relay to call with the first client chunk, when sniffing did not precede routing. */
  onFirstBytes?: (chunk: Buffer) => void;
}

const DOMAIN_CONDITIONS = ['domain', 'domain_suffix', 'domain_keyword'] as const;

/**
 * What happens between a flow's acceptance and its routing decision: the process
 * lookup starts (it never holds the flow up, except for the IPC hook, see `ask`), a
 * tunnel to an IP literal is sniffed when a rule could match the host it names, and
 * the IPC hook is asked.
 */
export class PreRouting {
  private hook: { key: string; client: IpcHookClient } | null = null;
  private readonly hostRules = new WeakMap<object, boolean>();

  constructor(private readonly opts: PreRoutingOptions) {}

  /** `answer` tells a tunnel's client it is open (SOCKS5 success, HTTP 200); absent for other flows. */
  async run(actor: FlowActor, req: PreRouteRequest, mode: RouteMode, answer?: () => void): Promise<PreRouted> {
    const { route, ipc_hook: hookConfig } = this.opts.config();
    const client = req.client;
    const process = route.process_lookup && client && this.opts.processes ? this.opts.processes.lookup(client) : null;
    void process?.then((info) => info && actor.learn({ process: info }));
    const tunnel = client !== undefined && answer !== undefined && route.sniff;
    const result: PreRouted = { answered: false, head: null, verdict: ALLOW };
    if (tunnel && isIP(req.target.host) !== 0 && mode === 'rule' && this.usesHostNames(route.rules)) {
      answer();
      result.answered = true;
      const peeked = await peekHost(client, route.sniff_timeout_ms);
      if (peeked.bytes.length > 0) result.head = peeked.bytes;
      if (peeked.host) {
        result.sniffed_host = peeked.host;
        actor.learn({ sniffed_host: peeked.host });
      }
    } else if (tunnel) {
      result.onFirstBytes = (chunk) => {
        const outcome = sniffHost(chunk);
        if (outcome.kind === 'host') actor.learn({ sniffed_host: outcome.host });
      };
    }
    if (hookConfig) result.verdict = await this.ask(hookConfig, actor, req, process, result.sniffed_host);
    else if (this.hook) this.closeHook();
    return result;
  }

  /** Ends the connection to the hook and the process lookup's thread. */
  close(): void {
    this.closeHook();
    this.opts.processes?.close();
  }

  private closeHook(): void {
    this.hook?.client.close();
    this.hook = null;
  }

  /**
   * Asks the hook. Its question carries the client's process, so the lookup is
   * waited for here, bounded by the hook's own timeout.
   */
  private async ask(
    config: NonNullable<WeirConfig['ipc_hook']>,
    actor: FlowActor,
    req: PreRouteRequest,
    process: Promise<ProcessInfo | null> | null,
    sniffed: string | undefined,
  ): Promise<HookVerdict> {
    const info = process ? await within(process, config.timeout_ms) : null;
    const source = req.source && info ? { ...req.source, ...info } : req.source;
    const target = sniffed ? { ...req.target, sniffed_host: sniffed } : req.target;
    const verdict = await this.hookClient(config).ask({
      flow_id: actor.id,
      network: 'tcp',
      inbound: req.inbound,
      ...(source && { source }),
      target,
      auth: { scheme: req.auth.scheme, principal_key: req.auth.principal_key },
    });
    if (verdict.action !== 'route' || this.opts.knows(verdict.outbound)) return verdict;
    this.opts.log.warn({ flow_id: actor.id, outbound: verdict.outbound }, 'the IPC hook routed to an unknown outbound; routing by rules');
    return ALLOW;
  }

  private hookClient(config: NonNullable<WeirConfig['ipc_hook']>): IpcHookClient {
    const key = `${config.path}\n${config.timeout_ms}`;
    if (this.hook?.key === key) return this.hook.client;
    this.hook?.client.close();
    const client = new IpcHookClient({
      path: config.path,
      timeoutMs: config.timeout_ms,
      onUnreachable: (message) =>
        this.opts.publish({ event_type: 'engine.warning', payload: { code: 'ipc_hook_unreachable', message: `${message}; flows are allowed` } }),
      onBadAnswer: (message) => this.opts.log.warn({ path: config.path }, message),
    });
    this.hook = { key, client };
    return client;
  }

  /** Whether a rule looks at host names: only then can a sniffed host change a decision. */
  private usesHostNames(rules: WeirConfig['route']['rules']): boolean {
    let uses = this.hostRules.get(rules);
    if (uses === undefined) {
      uses = rules.some((rule) => DOMAIN_CONDITIONS.some((key) => rule[key] !== undefined));
      this.hostRules.set(rules, uses);
    }
    return uses;
  }
}
