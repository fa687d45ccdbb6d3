import { WAIT_MS } from './far-bound.js';
import { waitFor } from './wait-for.js';
import { RESTARTABLE_API_KEY } from './restartable-config.js';

/** A control-plane request with the key of restartableConfig; the body parsed as JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- spec-side convenience, never in http/
export async function getJson(url: string, method = 'GET'): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${RESTARTABLE_API_KEY}` } });
  return { status: res.status, body: await res.json() };
}

/** Resolves once the control plane answers: a node starts it after its inbounds, which startNode waits for. */
export async function controlUp(control: string): Promise<void> {
  await waitFor(() => fetch(`${control}/api/v1/health`).then(() => true, () => false), WAIT_MS, 'the control plane');
}
