/**
 * File and directory names for pulled items: readable, portable and stable.
 *
 * Portable means valid on Linux, macOS and Windows at once: no reserved characters or device
 * names, no leading dot (the loader skips hidden entries), at most 255 bytes, and unique among
 * siblings even on a case-insensitive file system (macOS and Windows defaults), so a repository
 * pulled on Linux checks out everywhere.
 */

/** Longest slug, in code points, before the extension and any `-N` suffix. */
const MAX_SLUG_CHARS = 80;
/** A cap in bytes well under the 255 most file systems allow, leaving room for `-N.yaml`. */
const MAX_NAME_BYTES = 200;

// eslint-disable-next-line no-control-regex
const WINDOWS_RESERVED_CHARS = /[<>:"/\\|?*\u0000-\u001f\u007f]/g;
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\..*)?$/i;

const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');
/** UTF-8 bytes of one code point (a lone surrogate is written as U+FFFD: 3 bytes). */
const utf8Bytes = (cp: number): number => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);

/** Cuts `s` to at most `chars` code points and `bytes` UTF-8 bytes, never inside a code point. */
function truncate(s: string, chars: number, bytes: number): string {
  // short enough whatever it holds (a UTF-16 unit is at most 3 bytes, a pair 4)
  if (s.length <= chars && s.length * 3 <= bytes) return s;
  let out = '';
  let n = 0;
  let size = 0;
  for (const ch of s) {
    const b = utf8Bytes(ch.codePointAt(0)!);
    if (n >= chars || size + b > bytes) break;
    out += ch;
    size += b;
    n += 1;
  }
  return out;
}

/**
 * The slug of a title: NFC, lower-case, letters, digits and combining marks of every script
 * kept, every run of anything else turned into one `-`, no `-` at either end, at most
 * {@link MAX_SLUG_CHARS} characters. Never empty (`fallback` when nothing is left) and never a
 * Windows device name.
 */
export function slugify(title: string, fallback = 'untitled'): string {
  const base = title
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  let slug = truncate(base, MAX_SLUG_CHARS, MAX_NAME_BYTES).replace(/-+$/, '');
  if (slug === '') slug = fallback;
  if (WINDOWS_DEVICE.test(slug)) slug = `${slug}-${fallback}`;
  return slug;
}

/**
 * True when a folder name can be used as the directory name as it is, on every platform.
 * A name that cannot is written as a safe directory name plus `name:` in `_folder.yaml`.
 */
export function isPortableDirName(name: string): boolean {
  if (name === '' || name === '.' || name === '..') return false;
  if (name !== name.normalize('NFC')) return false;
  if (name.startsWith('.')) return false; // hidden: the loader would skip it
  if (name !== name.trim()) return false;
  if (name.endsWith('.')) return false; // Windows drops trailing dots
  if (new RegExp(WINDOWS_RESERVED_CHARS.source).test(name)) return false;
  if (WINDOWS_DEVICE.test(name)) return false;
  return utf8Length(name) <= MAX_NAME_BYTES;
}

/** A directory name for a folder name that is not portable: the offending characters replaced. */
export function safeDirName(name: string): string {
  let s = name
    .normalize('NFC')
    .replace(new RegExp(`\\s*(?:${WINDOWS_RESERVED_CHARS.source})+\\s*`, 'g'), '-')
    .replace(/^[\s.-]+|[\s.-]+$/g, '')
    .replace(/-{2,}/g, '-');
  s = truncate(s, 255, MAX_NAME_BYTES).replace(/[\s.]+$/, '');
  if (s === '' || s === '-') s = 'folder';
  if (WINDOWS_DEVICE.test(s)) s = `${s}-folder`;
  return s;
}

/**
 * The key under which two names are one entry on macOS and Windows by default: Unicode-normalised
 * (NFC; `Café` typed on macOS is NFD) and case-folded.
 */
export const twinKey = (name: string): string => name.normalize('NFC').toUpperCase().toLowerCase();

/**
 * Hands out names unique within one directory, compared as macOS and Windows compare them
 * (two names that differ only by case or by Unicode normalisation are one file there).
 */
export class NameAllocator {
  private readonly taken = new Map<string, string>();

  /** Marks a name as used (an existing file, a reused path). */
  reserve(name: string): void {
    const key = twinKey(name);
    if (!this.taken.has(key)) this.taken.set(key, name);
  }

  has(name: string): boolean {
    return this.taken.has(twinKey(name));
  }

  /** The name already taken that `name` would be one entry with, if any. */
  twinOf(name: string): string | undefined {
    return this.taken.get(twinKey(name));
  }

  /** `stem + ext`, or `stem-2 + ext`, `stem-3 + ext`, … whichever is free first; reserves it. */
  allocate(stem: string, ext = ''): string {
    let name = `${stem}${ext}`;
    for (let n = 2; this.has(name); n += 1) name = `${stem}-${n}${ext}`;
    this.reserve(name);
    return name;
  }
}
