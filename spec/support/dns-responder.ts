import dgram from 'node:dgram';
import ipaddr from 'ipaddr.js';

export type RecordType = 'A' | 'AAAA';

/** The addresses to answer for a question; null answers NXDOMAIN, [] a name without such records. */
export type Answer = (name: string, type: RecordType) => string[] | null;

export interface DnsResponder {
  /** `127.0.0.1:<port>`, as dns.servers takes it. */
  server: string;
  /** The queries asked so far (retries of one not again), in order, as `A rebind.test`. */
  questions: string[];
  close(): Promise<void>;
}

const TYPES: Record<number, RecordType> = { 1: 'A', 28: 'AAAA' };
const CODES: Record<RecordType, number> = { A: 1, AAAA: 28 };

/**
 * A real DNS server on 127.0.0.1 over UDP, for specs that must control what a name
 * resolves to (and change it between lookups) without touching /etc/hosts. It reads
 * the first question of a query and answers it alone (TTL 0, no EDNS); any other query
 * type gets an empty answer.
 */
export async function startDnsResponder(answer: Answer): Promise<DnsResponder> {
  const socket = dgram.createSocket('udp4');
  const questions: string[] = [];
  // A resolver that retries sends the same query (same id) again: it gets the same
  // answer and is not counted as a new question.
  const answered = new Map<string, string[] | null>();
  socket.on('message', (query, peer) => {
    const question = readQuestion(query);
    if (!question) return;
    const type = TYPES[question.type];
    const key = `${query.readUInt16BE(0)} ${question.type} ${question.name}`;
    if (!answered.has(key)) {
      if (type) questions.push(`${type} ${question.name}`);
      answered.set(key, type ? answer(question.name, type) : []);
    }
    socket.send(reply(query, question.end, type, answered.get(key)!), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  socket.unref();
  return {
    server: `127.0.0.1:${socket.address().port}`,
    questions,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** The name and type of the question after the 12-byte header, and where it ends. */
function readQuestion(query: Buffer): { name: string; type: number; end: number } | null {
  const labels: string[] = [];
  let at = 12;
  while (at < query.length && query[at] !== 0) {
    const length = query[at]!;
    labels.push(query.toString('latin1', at + 1, at + 1 + length));
    at += 1 + length;
  }
  // The root label, then QTYPE and QCLASS.
  const end = at + 5;
  if (end > query.length) return null;
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(at + 1), end };
}

function reply(query: Buffer, questionEnd: number, type: RecordType | undefined, addresses: string[] | null): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  // QR, the query's RD, RA; RCODE 3 (NXDOMAIN) for a name that does not exist.
  header.writeUInt16BE(0x8080 | (query.readUInt16BE(2) & 0x0100) | (addresses === null ? 3 : 0), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses?.length ?? 0, 6);
  const records = (addresses ?? []).map((address) => {
    const rdata = Buffer.from(ipaddr.parse(address).toByteArray());
    const fixed = Buffer.alloc(12);
    // A pointer to the question's name at offset 12, TYPE, CLASS IN, TTL 0, RDLENGTH.
    fixed.writeUInt16BE(0xc00c, 0);
    fixed.writeUInt16BE(CODES[type!], 2);
    fixed.writeUInt16BE(1, 4);
    fixed.writeUInt32BE(0, 6);
    fixed.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([fixed, rdata]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
}
