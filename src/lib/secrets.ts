import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Seals secrets svc must read back later (webhook secrets, OAuth client secrets): AES-256-GCM. */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

const VERSION = 'v1';

/** `SVC_ENCRYPTION_KEY`: 32 bytes as 64 hex characters or base64. */
export function parseEncryptionKey(text: string): Buffer | null {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  return key.length === 32 ? key : null;
}

export function secretBox(key: Buffer): SecretBox {
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
    },
    open(sealed) {
      const [version, body] = sealed.split(':', 2);
      if (version !== VERSION || !body) throw new Error('not a sealed secret');
      const bytes = Buffer.from(body, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * The process's secret box. The key is `SVC_ENCRYPTION_KEY`, or else a key generated once into
 * `<dataDir>/encryption.key` (owner-only) on first use: right for the embedded store, which lives in
 * that directory; processes sharing a PostgreSQL database must share SVC_ENCRYPTION_KEY.
 */
export function lazySecretBox(configuredKey: Buffer | undefined, dataDir: string): SecretBox {
  let box: SecretBox | undefined;
  const resolve = () => {
    if (box) return box;
    if (configuredKey) return (box = secretBox(configuredKey));
    const file = path.join(dataDir, 'encryption.key');
    if (!fs.existsSync(file)) {
      fs.mkdirSync(dataDir, { recursive: true });
      try {
        fs.writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    const key = parseEncryptionKey(fs.readFileSync(file, 'utf8').trim());
    if (!key) throw new Error(`${file} does not hold a 32-byte key`);
    return (box = secretBox(key));
  };
  return { seal: (plain) => resolve().seal(plain), open: (sealed) => resolve().open(sealed) };
}
