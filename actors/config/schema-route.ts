import net from 'node:net';
import { z } from 'zod';
import { objectCheck, tagSchema, timerMsSchema, wellFormedString } from './schema-common.js';

/** An IP address or an IPv4/IPv6 CIDR block such as `10.0.0.0/8` or `fd00::/8`. */
export function isIpOrCidr(s: string): boolean {
  const [ip = '', prefix, ...rest] = s.split('/');
  const family = net.isIP(ip);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** `"1000-2000"`: an inclusive port range. */
function isPortRange(s: string): boolean {
  const m = /^(\d{1,5})-(\d{1,5})$/.exec(s);
  return m !== null && Number(m[1]) <= Number(m[2]) && Number(m[2]) <= 65535;
}

const nonEmptyStrings = z.array(z.string().min(1)).min(1);

/** The keys that make up a rule's condition; a rule matches when all given keys match. */
export const RULE_CONDITIONS = [
  'domain',
  'domain_suffix',
  'domain_keyword',
  'ip_cidr',
  'port',
  'network',
  'inbound',
  'principal',
] as const;

export const ruleSchema = z
  .strictObject({
    domain: nonEmptyStrings.optional().describe('Exact target host names.'),
    domain_suffix: nonEmptyStrings.optional().describe('Host name suffixes; "example.com" also matches its subdomains.'),
    domain_keyword: nonEmptyStrings.optional().describe('Substrings of the target host name.'),
    ip_cidr: z
      .array(z.string().refine(isIpOrCidr, 'must be an IP address or CIDR block').meta({ pattern: '^[0-9A-Fa-f:.]+(/[0-9]{1,3})?$' }))
      .min(1)
      .optional()
      .describe(
        'Target IP addresses or CIDR blocks (IPv4 or IPv6). A host name target matches when any of its addresses does: it is resolved when evaluation reaches the first such rule.',
      ),
    no_resolve: z
      .boolean()
      .optional()
      .describe('true: ip_cidr looks at IP literal targets only, a host name target never matches it (no DNS query).'),
    port: z
      .array(
        z.union([z.number().int().min(0).max(65535), z.string().refine(isPortRange, 'must be a "low-high" port range with low <= high <= 65535').meta({ pattern: '^[0-9]{1,5}-[0-9]{1,5}$' })], {
          error: (iss) => (iss.code === 'invalid_union' ? 'must be a port number or a "low-high" range' : undefined),
        }),
      )
      .min(1)
      .optional()
      .describe('Target ports or "low-high" ranges.'),
    network: z.array(z.enum(['tcp', 'udp'])).min(1).optional(),
    inbound: nonEmptyStrings.optional().describe('Inbound tags the flow arrived on.'),
    principal: nonEmptyStrings.optional().describe('principal_key values of authenticated users.'),
    outbound: tagSchema.describe('Outbound tag for flows that match.'),
  })
  .refine(
    (rule) => RULE_CONDITIONS.some((key) => rule[key] !== undefined),
    objectCheck(`rule has no condition (give at least one of ${RULE_CONDITIONS.join(', ')})`),
  )
  .refine((rule) => rule.no_resolve === undefined || rule.ip_cidr !== undefined, objectCheck('applies to ip_cidr, which this rule does not have', ['no_resolve']))
  // For editors: the refinement above, as JSON Schema states it.
  .meta({ anyOf: RULE_CONDITIONS.map((key) => ({ required: [key] })) });

export const routeSchema = z
  .strictObject({
    mode: z.enum(['rule', 'global']).default('rule').describe('rule: first matching rule, else final; global: every flow to global_target.'),
    global_target: tagSchema.optional().describe('Outbound tag used in global mode.'),
    rules: z.array(ruleSchema).default([]).describe('Checked in order; the first match decides.'),
    final: tagSchema
      .optional()
      .describe('Outbound tag when no rule matches. Default: "direct" if that outbound exists, else the first outbound.'),
    sniff: z
      .boolean()
      .default(true)
      .describe(
        'Read the TLS server name (SNI) or HTTP Host from the client\'s first bytes into target.sniffed_host. For a client that connected by IP while domain rules are in use, the tunnel is answered first and routed after sniffing.',
      ),
    sniff_timeout_ms: timerMsSchema(1)
      .default(300)
      .describe('Milliseconds to wait for the first client bytes before routing without a sniffed host.'),
    block_private: z
      .boolean()
      .default(false)
      .describe(
        'Refuse destinations this node would dial in its own networks: private, loopback, link-local, unique-local, CGNAT, unspecified, broadcast, reserved and multicast addresses, given as IP literals or resolved from a host name. Checked on the addresses the direct outbound connects or sends datagrams to; the flow ends blocked with failure code TARGET_PRIVATE.',
      ),
    process_lookup: z
      .boolean()
      .default(false)
      .describe(
        'On Linux, find the local process behind a client on this machine (source.process_id, process_name, process_path). Off by default: reading /proc costs about 40% of the short-connection rate on a busy node.',
      ),
  })
  .refine(
    (route) => route.mode !== 'global' || route.global_target !== undefined,
    objectCheck('is required when mode is "global"', ['global_target']),
  )
  .meta({ if: { properties: { mode: { const: 'global' } }, required: ['mode'] }, then: { required: ['global_target'] } })
  .prefault({});

export const ipcHookSchema = z
  .strictObject({
    path: wellFormedString().min(1).describe('Unix socket of the hook process, relative to the config file.'),
    timeout_ms: timerMsSchema(1)
      .default(200)
      .describe('Milliseconds for one answer, connecting included; after that the flow is allowed.'),
  })
  .optional()
  .describe('An external process asked about each new flow before routing: allow, deny, or route to an outbound. Unreachable means allowed.');
