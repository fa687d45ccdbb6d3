import { Duplex } from 'node:stream';

/**
 * Two connected in-memory streams: what one writes the other reads. Ending or destroying one
 * side ends the other's readable side, as a closed TCP connection would.
 */
export function duplexPair(): [Duplex, Duplex] {
  const make = (peer: () => Duplex): Duplex =>
    new Duplex({
      read() {
        // Data arrives through the peer's write(); nothing to pull.
      },
      write(chunk: Buffer, _encoding, callback) {
        peer().push(chunk);
        callback();
      },
      final(callback) {
        peer().push(null);
        callback();
      },
      destroy(error, callback) {
        peer().push(null);
        callback(error);
      },
    });
  const a: Duplex = make(() => b);
  const b: Duplex = make(() => a);
  return [a, b];
}
