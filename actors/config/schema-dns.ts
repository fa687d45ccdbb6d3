import net from 'node:net';
import { z } from 'zod';
import { isHostName } from '../net/host-name.js';
import { ipSchema } from './schema-common.js';

/** `1.2.3.4`, `1.2.3.4:5353`, `::1` or `[::1]:5353`: the forms dns.Resolver.setServers takes. */
export function isDnsServer(s: string): boolean {
  const bracketed = /^\[([^\]]+)\]:(\d{1,5})$/.exec(s);
  const v4WithPort = /^([\d.]+):(\d{1,5})$/.exec(s);
  const [ip, port] = bracketed ? [bracketed[1]!, bracketed[2]!] : v4WithPort ? [v4WithPort[1]!, v4WithPort[2]!] : [s, '53'];
  const family = net.isIP(ip);
  return family !== 0 && (family === 6 || !bracketed) && !ip.includes('%') && Number(port) >= 1 && Number(port) <= 65535;
}

/** A dns.hosts key: a host name, not an IP literal (which is never looked up). */
function isHostsName(s: string): boolean {
  return isHostName(s) && net.isIP(s) === 0;
}

export const dnsSchema = z
  .strictObject({
    hosts: z
      .record(z.string(), z.union([ipSchema, z.array(ipSchema).min(1)]))
      // Checked here, not by a key schema, so that the problem says what is wrong with the name.
      .superRefine((hosts, ctx) => {
        for (const name of Object.keys(hosts)) {
          if (!isHostsName(name)) ctx.addIssue({ code: 'custom', message: 'must be a host name', path: [name] });
        }
      })
      .meta({ propertyNames: { pattern: '^[A-Za-z0-9_.-]+$' } })
      .default({})
      .describe(
        'Fixed answers, as /etc/hosts gives them: a host name and its address or addresses. A target matches its entry in any case, with or without a trailing dot. Asked before the servers.',
      ),
    servers: z
      .array(z.string().refine(isDnsServer, 'must be an IP address, optionally with a port ("1.2.3.4:53", "[::1]:53")'))
      .min(1)
      .optional()
      .describe(
        'DNS servers asked for A and AAAA records of target names. Default: the system resolver (getaddrinfo, which reads /etc/hosts).',
      ),
  })
  .prefault({})
  .describe('How the node resolves target host names it dials itself (direct outbound) and judges (ip_cidr rules, route.block_private).');
