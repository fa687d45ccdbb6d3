/**
 * The ports fetch() refuses to connect to (the Fetch standard's "bad ports", which
 * Node's fetch follows): a Webhook URL on one of them would never reach its receiver,
 * each attempt failing with a bare network error for the days of retry_for_s. A sink
 * URL on one is refused when it is configured instead.
 */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115,
  117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587,
  601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669,
  6679, 6697, 10080,
]);

/** Whether fetch() refuses the port of `url` (an explicit one; a scheme's default port never is). */
export function fetchRefusesPort(url: URL): boolean {
  return url.port !== '' && BAD_PORTS.has(Number(url.port));
}

/** Every port fetch() refuses, for the spec that holds the list to Node's fetch. */
export const FETCH_BAD_PORTS: readonly number[] = [...BAD_PORTS];
