import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runCommand } from './run-command.js';
import { tempDir } from './temp-dir.js';

/** A certificate and its key, as PEM files. */
export interface CertFiles {
  cert: string;
  key: string;
  /** SHA-256 fingerprint, as a TLS peer certificate's `fingerprint256`. */
  fingerprint: string;
}

export interface TestCa {
  dir: string;
  /** The CA's certificate: curl's --cacert, a client's `ca`, the node's client_ca. */
  caCert: string;
  /** A certificate signed by the CA for 127.0.0.1 (server) or a client, valid for a day; `days: -1` is expired. */
  issue(name: string, opts?: { days?: number; client?: boolean }): Promise<CertFiles>;
}

async function openssl(args: string[], cwd: string): Promise<void> {
  const res = await runCommand('openssl', args, { cwd, timeoutMs: 20_000 });
  if (res.code !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${res.stderr}`);
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A throwaway CA made with the openssl CLI in a temp dir. */
export async function testCa(): Promise<TestCa> {
  const dir = tempDir('weir-ca-');
  await openssl(['req', '-x509', ...EC_KEY, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=weir test CA'], dir);
  return {
    dir,
    caCert: path.join(dir, 'ca.pem'),
    async issue(name, opts = {}) {
      const ext = path.join(dir, `${name}.ext`);
      fs.writeFileSync(ext, opts.client ? 'extendedKeyUsage=clientAuth\n' : 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
      await openssl(['req', ...EC_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
      await openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', String(opts.days ?? 1), '-extfile', ext], dir);
      const cert = path.join(dir, `${name}.pem`);
      return { cert, key: path.join(dir, `${name}.key`), fingerprint: new X509Certificate(fs.readFileSync(cert)).fingerprint256 };
    },
  };
}
