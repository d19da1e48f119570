// `svc admin-key` while `svc serve` owns the embedded store: the CLI may not open the data directory
// (one process owns it), so it asks the running server instead, over a Unix socket inside the data
// directory. Only whoever can enter the data directory (mode 0700, the user svc runs as, who can read
// the store and its sealing key anyway) can reach it. It answers one request: a new system-admin key.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ADMIN_SOCKET_NAME } from '../db/data-dir-lock.js';

const REQUEST = 'admin-key\n';
/** Unix socket paths are limited to 107 bytes on Linux. */
const MAX_SOCKET_PATH = 107;

export const adminSocketPath = (dataDir: string) => path.join(dataDir, ADMIN_SOCKET_NAME);

/** Listens for `svc admin-key` until the returned close is called; null when the path is too long for a socket. */
export async function listenForAdminKeyRequests(dataDir: string, issueKey: () => Promise<string>, log: (error: unknown) => void): Promise<(() => Promise<void>) | null> {
  const socketPath = adminSocketPath(dataDir);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) return null;
  // This process owns the data directory: a socket file left there is a dead owner's.
  fs.rmSync(socketPath, { force: true });
  const server = net.createServer((connection) => {
    let received = '';
    connection.setEncoding('utf8');
    connection.on('error', () => {});
    connection.on('data', (chunk: string) => {
      received += chunk;
      if (received.length > REQUEST.length) connection.destroy();
      else if (received === REQUEST) {
        issueKey().then(
          (key) => connection.end(`${key}\n`),
          (error: unknown) => {
            log(error);
            connection.end('error: the running server could not issue a key (see its log)\n');
          },
        );
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  fs.chmodSync(socketPath, 0o600);
  server.unref();
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      fs.rmSync(socketPath, { force: true });
    });
}

/** Asks the server owning `dataDir` for a new system-admin key; null when no server listens there. */
export function requestAdminKeyFromServer(dataDir: string): Promise<string | null> {
  const socketPath = adminSocketPath(dataDir);
  if (!fs.existsSync(socketPath)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    let answer = '';
    const connection = net.connect(socketPath, () => connection.write(REQUEST));
    connection.setEncoding('utf8');
    connection.setTimeout(30_000, () => connection.destroy(new Error('the running server did not answer within 30 s')));
    connection.on('data', (chunk: string) => (answer += chunk));
    connection.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? resolve(null) : reject(error)));
    connection.on('end', () => {
      const line = answer.trim();
      if (line.startsWith('error:')) reject(new Error(line.slice('error:'.length).trim()));
      else resolve(line);
    });
  });
}
