import type { Socket } from 'node:net';
import { SocksClient, type SocksProxy, type SocksRemoteHost } from 'socks';
import type { FlowFailureError } from '../errors/flow-failure.js';
import type { SocksTarget } from '../inbounds/socks5-wire.js';
import { HopNegotiationError } from '../outbounds/hop-error.js';
import { firstHopFailure, negotiationFailure } from '../outbounds/hop-failure.js';
import { hopEndpoint, type Hop } from '../outbounds/hop.js';
import { tcpConnect } from '../outbounds/tcp-connect.js';

export interface HopAssociation {
  /** The TCP control connection: the hop keeps the association while it is open. */
  control: Socket;
  /** Where the hop relays datagrams (BND.ADDR:BND.PORT; an unspecified address means the hop's own). */
  relay: SocksTarget;
}

// The socks package reports failures as fixed message strings (its ERRORS table).
const REJECTED = 'Socks5 proxy rejected connection - ';

function translate(err: unknown, hop: Hop): HopNegotiationError {
  const message = err instanceof Error ? err.message : String(err);
  if (message === 'Socket closed') return new HopNegotiationError('closed', 'closed the connection during the SOCKS5 handshake');
  if (message === 'Proxy connection timed out') return new HopNegotiationError('timeout', 'did not finish the SOCKS5 handshake in time');
  if (message === 'Socks5 Authentication failed' || message.includes('no accepted authentication type')) {
    return new HopNegotiationError('auth', `refused the authentication of user "${hop.username ?? ''}" (or asks for one)`);
  }
  if (message.startsWith(REJECTED)) {
    const reply = message.slice(REJECTED.length);
    return new HopNegotiationError('rejected', `answered UDP ASSOCIATE with ${reply}`, reply);
  }
  if (message.startsWith('Received invalid Socks5')) return new HopNegotiationError('protocol', message.replace(/^Received /, 'sent an '));
  return new HopNegotiationError('closed', `broke the connection during the SOCKS5 handshake: ${message}`);
}

function unspecified(host: string | undefined): boolean {
  return host === undefined || host === '0.0.0.0' || host === '::';
}

/**
 * Asks a SOCKS5 hop for a UDP association (RFC 1928 §7): a TCP connection, the
 * greeting and auth, then UDP ASSOCIATE with DST 0.0.0.0:0 (weir does not know its
 * sending port before the hop's answer). Failures name the hop, like a TCP chain's.
 * The socks package's own error is never passed on: it holds the password.
 */
export async function associateWithHop(hop: Hop, timeoutMs: number): Promise<HopAssociation> {
  let control: Socket;
  try {
    control = await tcpConnect(hopEndpoint(hop), timeoutMs);
  } catch (err) {
    throw firstHopFailure(err, hop);
  }
  const proxy: SocksProxy = { host: hop.server, port: hop.port, type: 5 };
  if (hop.username !== undefined && hop.password !== undefined) {
    proxy.userId = hop.username;
    proxy.password = hop.password.reveal();
  }
  // The socket is half-open and the package waits for 'close' only: a FIN must end it.
  const onEnd = (): void => {
    control.destroy();
  };
  control.once('end', onEnd);
  try {
    const bound = await new Promise<SocksRemoteHost | undefined>((resolve, reject) => {
      // createConnection() accepts `connect` only; the client itself speaks ASSOCIATE too.
      const client = new SocksClient({
        proxy,
        command: 'associate',
        destination: { host: '0.0.0.0', port: 0 },
        existing_socket: control,
        timeout: Math.max(1, timeoutMs),
      });
      client.once('established', (info) => resolve(info.remoteHost));
      client.once('error', reject);
      client.connect(control);
    });
    const relayHost = unspecified(bound?.host) ? (control.remoteAddress ?? hop.server) : bound!.host;
    return { control, relay: { host: relayHost, port: bound?.port ?? 0 } };
  } catch (err) {
    control.destroy();
    throw hopError(err, hop);
  } finally {
    control.off('end', onEnd);
  }
}

function hopError(err: unknown, hop: Hop): FlowFailureError {
  return negotiationFailure(translate(err, hop), [hop], 0, false);
}
