import { isIP } from 'node:net';
import type { ConfigProblem } from './problems.js';
import { parseListen } from './schema-control.js';
import type { WeirConfig } from './schema.js';

/** Whether only this machine reaches a listener on `host`: 127.0.0.0/8, ::1 or the name localhost. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  if (name === 'localhost' || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/**
 * The control plane's exposure and keys: a listener beyond loopback without TLS would
 * carry every key in cleartext, so it needs `control.tls` or `insecure_plaintext`
 * said by name; two keys with one id, or one secret under two ids, would make the
 * audit trail name the wrong caller. Messages name paths, never key values.
 */
export function checkControl(config: WeirConfig): ConfigProblem[] {
  const { control } = config;
  const problems: ConfigProblem[] = [];
  const listen = parseListen(control.listen);
  if (listen && !isLoopbackHost(listen.host) && !control.tls && !control.insecure_plaintext) {
    problems.push({
      path: 'control.listen',
      message: `${control.listen} is reachable beyond this machine, and without control.tls the API keys cross the network in cleartext: set control.tls (cert, key), or control.insecure_plaintext: true to accept that`,
    });
  }
  const secrets = [{ path: 'control.api_key', value: control.api_key.reveal() }];
  control.keys.forEach((k, i) => {
    const path = `control.keys[${i}]`;
    const sameId = control.keys.findIndex((other) => other.id === k.id);
    if (sameId < i) problems.push({ path: `${path}.id`, message: `duplicate id "${k.id}" (first used at control.keys[${sameId}])` });
    const sameKey = secrets.find((s) => s.value === k.key.reveal());
    if (sameKey) problems.push({ path: `${path}.key`, message: `is the same key as ${sameKey.path}: each key names one caller` });
    secrets.push({ path: `${path}.key`, value: k.key.reveal() });
  });
  return problems;
}
