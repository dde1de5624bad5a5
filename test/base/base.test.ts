import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { PathLike } from 'node:fs';
import { mkdtemp, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TmsyncError } from '../../src/errors.js';
import {
  SYNC_BASE_FILE,
  HashedFields,
  SyncBase,
  hasField,
  fieldHash,
  fieldHashes,
  fieldStanding,
  parseSyncBase,
  type BaseEntry,
  type BaseKind,
} from '../../src/base/base.js';
import { readSyncBase, writeSyncBase } from '../../src/base/base-file.js';

const P = 'proj-1';

function sample(): SyncBase {
  const base = new SyncBase(P);
  base.record('case', 'c-2', '2026-11-23T10:00:00Z', { title: 'Log in', description: 'Opens the page', labels: ['a', 'b'] });
  base.record('folder', 'f-1', 1763892000000, { name: 'Checkout', parent: null, order: 2 });
  base.record('step_group', 'g-1', undefined, { title: 'Sign in', 'step.0': { action: 'Open', expected: 'Shown' } });
  base.record('case', 'c-1', '2026-11-22T09:00:00Z', { title: 'Pay' });
  return base;
}

describe('the sync base file', () => {
  it('reads back what it wrote, entry for entry', () => {
    const text = sample().serialize();
    const { base, notes } = parseSyncBase(text, SYNC_BASE_FILE, P);
    expect(notes).toEqual([]);
    expect(base.size).toBe(4);
    expect(base.serialize()).toBe(text);
    expect(base.get('case', 'c-2')?.fields.get('title')).toBe(fieldHash('Log in'));
    expect(base.get('folder', 'f-1')?.updatedAt).toBe('1763892000000');
    expect(base.get('step_group', 'g-1')?.updatedAt).toBeUndefined();
  });

  it('writes one line per item in a stable order (folders, step groups, cases; by id), whatever the order of recording', () => {
    const lines = sample().serialize().split('\n').filter((l) => l && !l.startsWith('#'));
    expect(lines[0]).toBe(`tmsync-base 1 project ${P}`);
    expect(lines.slice(1).map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual(['folder f-1', 'step_group g-1', 'case c-1', 'case c-2']);
    const other = new SyncBase(P);
    other.record('case', 'c-1', '2026-11-22T09:00:00Z', { title: 'Pay' });
    other.record('step_group', 'g-1', undefined, { 'step.0': { expected: 'Shown', action: 'Open' }, title: 'Sign in' });
    other.record('folder', 'f-1', 1763892000000, { order: 2, parent: null, name: 'Checkout' });
    other.record('case', 'c-2', '2026-11-23T10:00:00Z', { labels: ['a', 'b'], description: 'Opens the page', title: 'Log in' });
    expect(other.serialize()).toBe(sample().serialize());
  });

  it('keeps ids and timestamps with spaces or odd characters intact', () => {
    const base = new SyncBase('my project');
    base.record('case', 'TC-1', '2026-11-23 10:00:00', { title: 'x' });
    base.record('case', '-', '-', { title: 'y' });
    const back = parseSyncBase(base.serialize(), SYNC_BASE_FILE, 'my project').base;
    expect(back.get('case', 'TC-1')?.updatedAt).toBe('2026-11-23 10:00:00');
    expect(back.get('case', '-')?.updatedAt).toBe('-');
  });

  it('merges in git without conflicts when two branches sync different items', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tmsync-base-git-'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } });
    git('init', '-q', '-b', 'main');
    const base = new SyncBase(P);
    for (let i = 0; i < 20; i++) base.record('case', `c-${String(i).padStart(2, '0')}`, `t${i}`, { title: `T${i}` });
    await writeFile(join(dir, SYNC_BASE_FILE), base.serialize());
    git('add', '.');
    git('commit', '-qm', 'base');
    git('checkout', '-qb', 'left');
    const left = parseSyncBase(base.serialize(), SYNC_BASE_FILE, P).base;
    left.record('case', 'c-03', 't3b', { title: 'T3 left' });
    left.record('case', 'c-03a', 'new', { title: 'added left' });
    await writeFile(join(dir, SYNC_BASE_FILE), left.serialize());
    git('commit', '-qam', 'left');
    git('checkout', '-q', 'main');
    const right = parseSyncBase(base.serialize(), SYNC_BASE_FILE, P).base;
    right.record('case', 'c-15', 't15b', { title: 'T15 right' });
    right.forget('case', 'c-10');
    await writeFile(join(dir, SYNC_BASE_FILE), right.serialize());
    git('commit', '-qam', 'right');
    git('merge', '-q', '--no-edit', 'left');
    const merged = parseSyncBase(await readFile(join(dir, SYNC_BASE_FILE), 'utf8'), SYNC_BASE_FILE, P);
    expect(merged.notes).toEqual([]);
    expect(merged.base.get('case', 'c-03')?.fields.get('title')).toBe(fieldHash('T3 left'));
    expect(merged.base.get('case', 'c-03a')).toBeDefined();
    expect(merged.base.get('case', 'c-15')?.fields.get('title')).toBe(fieldHash('T15 right'));
    expect(merged.base.get('case', 'c-10')).toBeUndefined();
    expect(merged.base.size).toBe(20);
  });

  it('after a conflicted merge, drops the items both sides recorded differently and keeps the rest, with a note', () => {
    const text = [
      `tmsync-base 1 project ${P}`,
      `case c-1 t1 title=${fieldHash('A')}`,
      '<<<<<<< HEAD',
      `case c-2 t2 title=${fieldHash('left')}`,
      '=======',
      `case c-2 t3 title=${fieldHash('right')}`,
      '>>>>>>> other',
      `case c-3 t3 title=${fieldHash('C')}`,
    ].join('\n');
    const { base, notes } = parseSyncBase(text, SYNC_BASE_FILE, P);
    expect(base.get('case', 'c-2')).toBeUndefined();
    expect(base.get('case', 'c-1')).toBeDefined();
    expect(base.get('case', 'c-3')).toBeDefined();
    expect(notes.join('\n')).toMatch(/merge-conflict markers/);
    expect(notes.join('\n')).toMatch(/1 item appeared twice/);
  });

  it('skips an unreadable line with a note, and keeps the other items', () => {
    const text = `tmsync-base 1 project ${P}\ncase c-1 t1 title=nothex\ncase c-2 t2 title=${fieldHash('B')}\n`;
    const { base, notes } = parseSyncBase(text, SYNC_BASE_FILE, P);
    expect(base.get('case', 'c-1')).toBeUndefined();
    expect(base.get('case', 'c-2')).toBeDefined();
    expect(notes).toEqual([`1 unreadable line in ${SYNC_BASE_FILE} skipped: those items are compared two ways until the next sync`]);
  });

  it('does not use a base written for another project, and says so', () => {
    const { base, notes } = parseSyncBase(sample().serialize(), SYNC_BASE_FILE, 'other-project');
    expect(base.size).toBe(0);
    expect(notes[0]).toMatch(/written for another project \(proj-1\)/);
  });

  it('refuses a base of a newer format, and a file that is not a base, saying what to do', () => {
    const newer = () => parseSyncBase(`tmsync-base 2 project ${P}\n`, SYNC_BASE_FILE, P);
    expect(newer).toThrow(TmsyncError);
    expect(newer).toThrow(/newer tmsync \(format 2; this one reads 1\)/);
    const garbage = () => parseSyncBase('{"not": "a base"}\n', SYNC_BASE_FILE, P);
    expect(garbage).toThrow(/tmsync.base:1: not a tmsync sync base/);
    try {
      garbage();
    } catch (err) {
      expect((err as TmsyncError).hint).toMatch(/restore tmsync.base from git.*delete it and review `tmsync plan`/);
    }
  });

  it('refuses an empty, comments-only or header-less base instead of taking it as no base yet, naming the file and what to do', () => {
    const texts: [string, RegExp][] = [
      ['', /is unreadable: it is empty/],
      ['\n\n', /is unreadable: it is empty/],
      ['# tmsync sync base: what the last apply or pull synced\n# apply and pull rewrite it.\n', /is unreadable: it is only comments/],
      ['<<<<<<< HEAD\n=======\n>>>>>>> other\n', /is unreadable: it is only git merge-conflict markers/],
      [`case c-1 t1 title=${fieldHash('A')}\n`, /:1: not a tmsync sync base/],
    ];
    for (const [text, message] of texts) {
      const read = () => parseSyncBase(text, SYNC_BASE_FILE, P, '/repo/tmsync.base');
      expect(read).toThrow(message);
      try {
        read();
      } catch (err) {
        expect((err as TmsyncError).code).toBe('invalid_sync_base');
        expect((err as TmsyncError).message).toContain('/repo/tmsync.base');
        expect((err as TmsyncError).hint).toMatch(/restore \/repo\/tmsync.base from git.*tmsync pull/);
      }
    }
  });

  it('refuses format versions tmsync never wrote (0, -1, 1.0, 01), saying which one it expects', () => {
    for (const v of ['0', '-1', '1.0', '01', '1e0', '0x1']) {
      const read = () => parseSyncBase(`tmsync-base ${v} project ${P}\n`, SYNC_BASE_FILE, P);
      expect(read, v).toThrow(TmsyncError);
      expect(read, v).toThrow(`format version "${v}" is not a version of the sync base (expected 1: \`tmsync-base 1 project <project id>\`)`);
    }
    expect(parseSyncBase(`tmsync-base 1 project ${P}\n`, SYNC_BASE_FILE, P).base.size).toBe(0);
  });

  it('names the file by its full path when read from disk, and an empty file is refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tmsync-base-'));
    await writeFile(join(dir, SYNC_BASE_FILE), '');
    await expect(readSyncBase(dir, P)).rejects.toThrow(`${join(dir, SYNC_BASE_FILE)} is unreadable: it is empty`);
  });

  it('refuses to record a field name or an id the file cannot hold', () => {
    const base = new SyncBase(P);
    expect(() => base.record('case', 'a b', 't', { title: 'x' })).toThrow(/cannot record case id/);
    expect(() => base.record('case', 'c', 't', { 'ti tle': 'x' })).toThrow(/cannot record field/);
  });

  it('is written atomically under the repository root and read back; a missing file is an empty base', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tmsync-base-'));
    const missing = await readSyncBase(dir, P);
    expect(missing.exists).toBe(false);
    expect(missing.base.size).toBe(0);
    await writeSyncBase(dir, sample());
    const back = await readSyncBase(dir, P);
    expect(back.exists).toBe(true);
    expect(back.base.serialize()).toBe(sample().serialize());
    expect(await readFile(join(dir, SYNC_BASE_FILE), 'utf8')).toBe(sample().serialize());
  });

  it('round-trips any entries (property)', () => {
    const kind = fc.constantFrom<BaseKind>('folder', 'step_group', 'case');
    const entry = fc.record({
      kind,
      id: fc.oneof(fc.constant('-'), fc.string({ minLength: 1 })).filter((s) => !/\s/.test(s)),
      at: fc.option(fc.oneof(fc.string(), fc.integer({ min: 0 })), { nil: undefined }),
      fields: fc.dictionary(fc.stringMatching(/^[a-z_.]{1,12}$/), fc.jsonValue()),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 12 }), (entries) => {
        const base = new SyncBase(P);
        for (const e of entries) base.record(e.kind, e.id, e.at, e.fields);
        const back = parseSyncBase(base.serialize(), SYNC_BASE_FILE, P);
        expect(back.notes).toEqual([]);
        expect(back.base.serialize()).toBe(base.serialize());
        expect(back.base.size).toBe(base.size);
      }),
    );
  });
});

describe('the sync base as held in memory (lines in normal form)', () => {
  const hex = fc.stringMatching(/^[0-9a-f]{12}$/);
  const token = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_.-]{1,20}$/), fc.string({ minLength: 1, maxLength: 8 }));
  const item = fc.record({
    kind: fc.constantFrom<BaseKind>('folder', 'step_group', 'case'),
    id: token.filter((s) => !/\s/.test(s) && s !== '-'),
    at: fc.option(token, { nil: undefined }),
    fields: fc.uniqueArray(fc.tuple(fc.stringMatching(/^[A-Za-z0-9_.[\]-]{1,14}$/), hex), { selector: ([n]) => n, maxLength: 14 }),
  });
  // every character percent-encoded: read back the same, but not the form tmsync writes
  const encodeAll = (s: string) => [...new TextEncoder().encode(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  const token2 = (s: string | undefined, messy: boolean) => (s === undefined || s === '' ? '-' : messy ? encodeAll(s) : s === '-' ? '%2D' : encodeURIComponent(s));

  it('gives back each entry as written, and writes the same file, whether a line was in normal form or not (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(item, { selector: (e) => `${e.kind} ${e.id}`, maxLength: 10 }), fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }), (items, messy) => {
        const lines = items.map((e, i) => {
          const m = messy[i];
          const fields = e.fields.map(([n, h]) => `${n}=${h}`);
          if (m) fields.reverse();
          return [e.kind, token2(e.id, m), token2(e.at, m), ...fields].join(m ? '  ' : ' ') + (m ? '\r' : '');
        });
        // each item twice (a merge that took both sides' identical lines): still one entry
        const text = [`tmsync-base 1 project ${P}`, ...lines, ...lines.slice().reverse()].join('\n');
        const { base, notes } = parseSyncBase(text, SYNC_BASE_FILE, P);
        expect(notes).toEqual([]);
        expect(base.size).toBe(items.length);
        const expected = items.map((e) => ({ kind: e.kind, id: e.id, updatedAt: e.at, fields: new Map([...e.fields].sort(([a], [b]) => (a < b ? -1 : 1))) }));
        // fields compared as their pairs in order: an entry's hashes read as a ReadonlyMap (packed, or a Map)
        const pairs = (x: BaseEntry | undefined) => x && { ...x, fields: [...x.fields] };
        for (const e of expected) expect(pairs(base.get(e.kind, e.id))).toEqual(pairs(e));
        expect(base.serialize()).toBe(SyncBase.of(P, expected).serialize());
      }),
    );
  });

  it('writes an id and an updated_at percent-encoded as encodeURIComponent does, timestamps and plain ids included (property)', () => {
    const text = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_.!~*'():-]{1,24}$/), fc.string({ minLength: 1, maxLength: 12 }), fc.date({ noInvalidDate: true }).map((d) => d.toISOString()));
    fc.assert(
      fc.property(
        text.filter((s) => !/\s/.test(s) && s !== '-'),
        text,
        (id, at) => {
          const line = SyncBase.of(P, [{ kind: 'case', id, updatedAt: at, fields: new Map([['title', fieldHash('x')]]) }]).serialize().split('\n').find((l) => l.startsWith('case '));
          expect(line).toBe(`case ${encodeURIComponent(id)} ${at === '-' ? '%2D' : encodeURIComponent(at)} title=${fieldHash('x')}`);
        },
      ),
    );
  });

  it('keeps entries recorded after reading beside the lines read, and a copy apart from the base it was taken from', () => {
    const read = parseSyncBase(sample().serialize(), SYNC_BASE_FILE, P).base;
    const copy = read.copy();
    copy.record('case', 'c-1', '2026-11-24T09:00:00Z', { title: 'Pay now' });
    copy.forget('folder', 'f-1');
    expect(read.get('case', 'c-1')?.fields.get('title')).toBe(fieldHash('Pay'));
    expect(read.get('folder', 'f-1')).toBeDefined();
    expect(copy.get('case', 'c-1')?.fields.get('title')).toBe(fieldHash('Pay now'));
    expect(copy.get('folder', 'f-1')).toBeUndefined();
    expect(copy.get('case', 'c-2')).toEqual(read.get('case', 'c-2'));
    expect(parseSyncBase(copy.serialize(), SYNC_BASE_FILE, P).base.serialize()).toBe(copy.serialize());
  });
});

describe('a field between the base, the repository and the service', () => {
  const h = fieldHash('synced');
  it.each([
    ['no base', undefined, 'x', 'y', 'no_base'],
    ['neither side changed it', h, 'synced', 'synced', 'unchanged'],
    ['only the repository changed it', h, 'file text', 'synced', 'local'],
    ['only the service changed it', h, 'synced', 'UI text', 'remote'],
    ['both changed it to the same value', h, 'same', 'same', 'same'],
    ['both changed it to different values', h, 'file text', 'UI text', 'conflict'],
  ] as const)('%s: %s', (_name, base, local, remote, expected) => {
    expect(fieldStanding(base, local, remote)).toBe(expected);
  });

  it('compares structured values whatever the order of their keys', () => {
    const base = fieldHash({ action: 'Open', expected: 'Shown' });
    expect(fieldStanding(base, { expected: 'Shown', action: 'Open' }, { action: 'Open', expected: 'Shown' })).toBe('unchanged');
    expect(fieldHash(undefined)).toBe(fieldHash(null));
  });
});

describe('recording with fields kept', () => {
  it('keeps the hash the base held for a kept field and records the others anew', () => {
    const base = new SyncBase(P);
    base.record('case', 'c-1', 't1', { title: 'A', description: 'base' });
    base.record('case', 'c-1', 't2', { title: 'B', description: 'UI text' }, ['description']);
    expect(base.get('case', 'c-1')?.fields.get('title')).toBe(fieldHash('B'));
    expect(base.get('case', 'c-1')?.fields.get('description')).toBe(fieldHash('base'));
    // a kept field the base never held stays without a base
    base.record('case', 'c-2', 't', { title: 'C', description: 'x' }, ['description']);
    expect(base.get('case', 'c-2')?.fields.has('description')).toBe(false);
    expect([...base.entries('case')].map((e) => e.id).sort()).toEqual(['c-1', 'c-2']);
  });
});

describe('recording fields hashed ahead of time (HashedFields)', () => {
  it('gives the same entry as recording the values, with fields kept or not, and refuses the same names', () => {
    const values = { title: 'Log in', description: 'Opens the page', labels: ['a', 'b'], steps: [{ description: 'x', expected: '', stepGroup: null }] };
    const plain = new SyncBase(P);
    const hashed = new SyncBase(P);
    for (const b of [plain, hashed]) b.record('case', 'c-1', 't0', { title: 'Old', description: 'base' });
    plain.record('case', 'c-1', 't1', values, ['description']);
    hashed.record('case', 'c-1', 't1', new HashedFields(values), ['description']);
    plain.record('case', 'c-2', 't2', values);
    hashed.record('case', 'c-2', 't2', new HashedFields(values));
    expect(hashed.serialize()).toBe(plain.serialize());
    expect([...hashed.get('case', 'c-2')!.fields.keys()]).toEqual(['description', 'labels', 'steps', 'title']);
    expect(hasField(new HashedFields(values), 'labels')).toBe(true);
    expect(hasField(new HashedFields({ title: 'T' }), 'labels')).toBe(false);
    expect(() => hashed.record('case', 'c-3', 't', new HashedFields({ 'bad name': 1 }))).toThrow(TmsyncError);
  });
});

describe('an entry recorded from fields hashed ahead of time is held as its line (issue 15)', () => {
  it('reads, serializes and parses back as the entry recorded from the values, ids and times that need encoding included', () => {
    const values = { title: 'Log in', description: 'Opens the page', labels: ['a', 'b'], 'custom.x-1': 3 };
    const plain = new SyncBase(P);
    const hashed = new SyncBase(P);
    for (const [id, at] of [
      ['c-1', '2026-11-23T10:00:00Z'],
      ['c/2é%', '2026-11-23 10:00'],
      ['-', undefined],
      ['c-4', 1763892000000],
    ] as const) {
      plain.record('case', id, at, values);
      hashed.record('case', id, at, new HashedFields(values));
    }
    expect(hashed.serialize()).toBe(plain.serialize());
    for (const id of ['c-1', 'c/2é%', '-', 'c-4']) expect(hashed.get('case', id)).toEqual(plain.get('case', id));
    const back = parseSyncBase(hashed.serialize(), SYNC_BASE_FILE, P).base;
    expect(back.serialize()).toBe(plain.serialize());
  });

  it('tells whether recording the service’s fields would leave the entry as held, for entries read from a file or recorded', () => {
    const values = { title: 'Log in', description: 'Opens the page' };
    const recorded = new SyncBase(P);
    recorded.record('case', 'c-1', 't1', values);
    recorded.record('case', 'c-2', 't1', values, ['description']);
    const read = parseSyncBase(recorded.serialize(), SYNC_BASE_FILE, P).base;
    for (const base of [recorded, read]) {
      expect(base.holds('case', 'c-1', 't1', new HashedFields(values))).toBe(true);
      // another time, another value, another field, another item: not as held
      expect(base.holds('case', 'c-1', 't2', new HashedFields(values))).toBe(false);
      expect(base.holds('case', 'c-1', 't1', new HashedFields({ ...values, title: 'Log out' }))).toBe(false);
      expect(base.holds('case', 'c-1', 't1', new HashedFields({ ...values, labels: [] }))).toBe(false);
      expect(base.holds('case', 'c-3', 't1', new HashedFields(values))).toBe(false);
      expect(base.holds('folder', 'c-1', 't1', new HashedFields(values))).toBe(false);
      // c-2 kept a field the base never held: recording both gives another entry
      expect(base.holds('case', 'c-2', 't1', new HashedFields(values))).toBe(false);
    }
  });
});

describe('writing the sync base', () => {
  it('writes nothing when the new text is the text read, and writes a changed base', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tmsync-base-'));
    await writeSyncBase(root, sample());
    const read = await readSyncBase(root, P);
    const renames: string[] = [];
    const ops = {
      rename: async (from: PathLike, to: PathLike) => {
        renames.push(String(to));
        return rename(from, to);
      },
    };
    expect(await writeSyncBase(root, read.base, ops, read.text)).toBe(false);
    expect(renames).toEqual([]);
    read.base.record('case', 'c-9', 't9', { title: 'New' });
    expect(await writeSyncBase(root, read.base, ops, read.text)).toBe(true);
    expect(renames).toEqual([join(root, SYNC_BASE_FILE)]);
    expect(await readFile(join(root, SYNC_BASE_FILE), 'utf8')).toBe(read.base.serialize());
  });
});

describe('the hash of a field', () => {
  it('is the first 12 hex digits of the SHA-256 of its canonical JSON (bases written before stay valid)', () => {
    const sha = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);
    expect(fieldHash('Log in')).toBe(sha('"Log in"'));
    expect(fieldHash({ b: 1, a: [2, 'é'] })).toBe(sha('{"a":[2,"é"],"b":1}'));
    expect(fieldHash(undefined)).toBe(sha('null'));
    });
  });

describe('the field hashes of an entry (issue 15: packed, not a Map per entry)', () => {
  it('reads as the Map of the same entries, in their order: get, has, size, keys, values, entries, forEach', () => {
    const entries: [string, string][] = [
      ['description', fieldHash('d')],
      ['steps', fieldHash([])],
      ['title', fieldHash('t')],
    ];
    const packed = fieldHashes(entries);
    const map = new Map(entries);
    expect(packed).not.toBeInstanceOf(Map);
    expect(packed.size).toBe(3);
    for (const name of ['description', 'steps', 'title', 'owner', '']) {
      expect(packed.get(name)).toBe(map.get(name));
      expect(packed.has(name)).toBe(map.has(name));
    }
    expect([...packed]).toEqual([...map]);
    expect([...packed.keys()]).toEqual([...map.keys()]);
    expect([...packed.values()]).toEqual([...map.values()]);
    expect([...packed.entries()]).toEqual([...map.entries()]);
    const seen: string[] = [];
    packed.forEach((hash, name, self) => {
      expect(self).toBe(packed);
      seen.push(`${name}=${hash}`);
    });
    expect(seen).toEqual(entries.map(([n, h]) => `${n}=${h}`));
  });

  it('gives a recorded and a read entry the same hashes, and a hash of another length a plain Map', () => {
    const base = new SyncBase('p1');
    base.record('case', 'c-1', 100, { title: 'A', description: 'B' }, []);
    const { base: read } = parseSyncBase(base.serialize(), 'tmsync.base', 'p1');
    expect([...read.get('case', 'c-1')!.fields]).toEqual([...base.get('case', 'c-1')!.fields]);
    expect(read.get('case', 'c-1')!.fields.get('title')).toBe(fieldHash('A'));
    expect(fieldHashes([['title', 'abc']])).toBeInstanceOf(Map);
  });
});
