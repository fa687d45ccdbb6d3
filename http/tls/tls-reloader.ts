import fs from 'node:fs';
import path from 'node:path';
import type tls from 'node:tls';
import type { Logger } from 'pino';
import { loadTlsMaterial, TlsError, type TlsMaterial, type TlsPaths } from './tls-material.js';

/** Ms of quiet after a change of a watched file before it is read: a cert and key written one after the other load as a pair. */
const SETTLE_MS = 250;

export interface TlsReloader {
  /** Reads the files again; a pair that cannot serve leaves the one in use and is logged as a warning. True when it took the new one. */
  reload(reason: 'signal' | 'file_changed'): boolean;
  close(): void;
}

/**
 * Keeps the listeners' certificate current: on reload() (SIGHUP) and when a file of
 * control.tls changes (its directory is watched, so a file replaced by rename, as
 * certbot and Kubernetes do, is seen too), the files are read and checked again and
 * the servers take the new context. New connections get it; open ones keep theirs.
 */
export function tlsReloader(paths: TlsPaths, servers: readonly tls.Server[], log: Logger): TlsReloader {
  const files = [paths.cert, paths.key, ...(paths.client_ca === undefined ? [] : [paths.client_ca])];
  const reload = (reason: 'signal' | 'file_changed'): boolean => {
    let material: TlsMaterial;
    try {
      material = loadTlsMaterial(paths);
    } catch (err) {
      if (!(err instanceof TlsError)) throw err;
      log.warn({ code: err.code, reason }, `control TLS not reloaded, the certificate in use stays: ${err.message}`);
      return false;
    }
    for (const server of servers) server.setSecureContext(material.context);
    log.info({ reason, cert: paths.cert, not_after: material.notAfter, fingerprint: material.fingerprint }, 'control TLS reloaded');
    return true;
  };
  let timer: NodeJS.Timeout | undefined;
  const changed = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => reload('file_changed'), SETTLE_MS);
  };
  const watchers = [...new Set(files.map((f) => path.dirname(f)))].map((dir) => {
    const names = new Set(files.filter((f) => path.dirname(f) === dir).map((f) => path.basename(f)));
    const watcher = fs.watch(dir, { persistent: false }, (_event, name) => {
      // Some platforms give no name: then any change may be ours.
      if (name === null || names.has(name.toString())) changed();
    });
    watcher.on('error', (err) => log.warn({ err: err.message, dir }, 'control TLS: cannot watch the directory; SIGHUP still reloads'));
    return watcher;
  });
  return {
    reload,
    close() {
      clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
