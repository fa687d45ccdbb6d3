import type { Test } from 'uvu';
import { proxyFixture, type ProxySetup } from './proxy-fixture.js';
import { runWeir, type CommandResult } from './weir-bin.js';

export const MIXED = { tag: 'mixed-in', protocol: 'mixed' };

export interface CliSetup extends ProxySetup {
  /** Runs `weir <args> -c <the node's config file>`: the client finds the socket as an operator's would. */
  weir(...args: string[]): Promise<CommandResult>;
  /** curl's options for the SOCKS5 side of the mixed inbound. */
  via: string[];
}

/**
 * A real `weir run` for a CLI spec file (see proxyFixture): a mixed inbound; outbounds
 * `direct`, `block` and the selector `proxy` of both, on `direct`; routed by `final`.
 */
export function cliFixture(suite: Test, opts: { final?: string } = {}): () => Promise<CliSetup> {
  const setup = proxyFixture(suite, {
    inbounds: [{ type: 'mixed', tag: MIXED.tag }],
    outbounds: [{ type: 'selector', tag: 'proxy', members: ['direct', 'block'], default: 'direct' }],
    ...(opts.final ? { route: { final: opts.final } } : {}),
  });
  return async () => {
    const s = await setup();
    return {
      ...s,
      weir: (...args) => runWeir([...args, '-c', s.node.configPath]),
      via: ['--socks5-hostname', s.proxy(MIXED.tag)],
    };
  };
}
