import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import tls from 'node:tls';
import { WeirError } from '../../actors/errors/weir-error.js';

export type TlsErrorCode = 'TLS_FILE_UNREADABLE' | 'TLS_CERT_INVALID' | 'TLS_CERT_EXPIRED' | 'TLS_KEY_INVALID' | 'TLS_KEY_MISMATCH';

/** A certificate, key or CA file of control.tls that cannot serve; the message names the file, never its contents. */
export class TlsError extends WeirError<TlsErrorCode> {}

/** control.tls, its paths absolute. */
export interface TlsPaths {
  cert: string;
  key: string;
  client_ca?: string;
}

/** What a listener's secure context is made of, checked. */
export interface TlsMaterial {
  context: tls.SecureContextOptions;
  /** The certificate's end of validity and SHA-256 fingerprint, for the log. */
  notAfter: string;
  fingerprint: string;
}

function read(field: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new TlsError('TLS_FILE_UNREADABLE', `control.tls.${field} ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? 'read error'})`);
  }
}

function certificate(field: string, file: string, pem: Buffer): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new TlsError('TLS_CERT_INVALID', `control.tls.${field} ${file}: holds no PEM certificate`);
  }
}

function privateKey(file: string, pem: Buffer): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    // The parser's own message may quote the file; it is a private key.
    throw new TlsError('TLS_KEY_INVALID', `control.tls.key ${file}: holds no PEM private key (an encrypted key is not supported)`);
  }
}

/**
 * Reads and checks the files of control.tls: each readable, the certificate current
 * (not expired at `now`), the key its own, the client CA a certificate. Throws a
 * TlsError naming the file at fault.
 */
export function loadTlsMaterial(paths: TlsPaths, now: number = Date.now()): TlsMaterial {
  const certPem = read('cert', paths.cert);
  const keyPem = read('key', paths.key);
  const caPem = paths.client_ca === undefined ? undefined : read('client_ca', paths.client_ca);
  const cert = certificate('cert', paths.cert, certPem);
  if (Date.parse(cert.validTo) <= now) throw new TlsError('TLS_CERT_EXPIRED', `control.tls.cert ${paths.cert}: the certificate expired on ${cert.validTo}`);
  if (!cert.checkPrivateKey(privateKey(paths.key, keyPem))) {
    throw new TlsError('TLS_KEY_MISMATCH', `control.tls.key ${paths.key}: is not the private key of the certificate in ${paths.cert}`);
  }
  if (caPem !== undefined) certificate('client_ca', paths.client_ca!, caPem);
  const context: tls.SecureContextOptions = caPem === undefined ? { cert: certPem, key: keyPem } : { cert: certPem, key: keyPem, ca: caPem };
  try {
    tls.createSecureContext(context);
  } catch (err) {
    throw new TlsError('TLS_CERT_INVALID', `control.tls.cert ${paths.cert}: cannot serve TLS (${(err as NodeJS.ErrnoException).code ?? 'invalid'})`);
  }
  return { context, notAfter: cert.validTo, fingerprint: cert.fingerprint256 };
}
