import { createHash, randomBytes } from 'node:crypto';

/**
 * API keys are kept only as SHA-256 hashes; the plain key is compared by hashing the presented one.
 */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateKey(): string {
  return `tms_${randomBytes(24).toString('base64url')}`;
}

export class KeyRing {
  private readonly hashes = new Set<string>();
  /** the last accepted Authorization header and its key's hash: a client sends the same one every time */
  private last?: { header: string; hash: string };
  constructor(keys: string[]) {
    for (const k of keys) this.hashes.add(hashKey(k));
  }

  /** The key's hash when the header carries an accepted bearer key, else undefined. */
  check(authorization: string | undefined): string | undefined {
    if (!authorization) return undefined;
    if (authorization === this.last?.header) return this.last.hash;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) return undefined;
    const hash = this.accepts(m[1]);
    if (hash) this.last = { header: authorization, hash };
    return hash;
  }

  /** The key's hash when it is an accepted key (the web UI's cookie carries the bare key), else undefined. */
  accepts(key: string): string | undefined {
    if (key.length === 0) return undefined;
    const h = hashKey(key);
    return this.hashes.has(h) ? h : undefined;
  }
}
