import { describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { parseFolderPath } from '../../src/cli/commands/pull.js';
import { parseUserMap } from '../../src/cli/commands/restore.js';

describe('transfer command options', () => {
  it('parses repeated --map-user OLD=NEW pairs and refuses a pair without both sides', () => {
    expect(parseUserMap(['a@old.example=a@new.example', ' b@old.example = b@new.example '])).toEqual({
      'a@old.example': 'a@new.example',
      'b@old.example': 'b@new.example',
    });
    expect(() => parseUserMap(['a@old.example'])).toThrow(/expected OLD=NEW/);
    expect(() => parseUserMap(['=b'])).toThrow(/expected OLD=NEW/);
  });

  it('splits --folder paths on / and ignores empty segments', () => {
    expect(parseFolderPath('Checkout/Payments/')).toEqual(['Checkout', 'Payments']);
    expect(parseFolderPath('/')).toBeUndefined();
    expect(parseFolderPath(undefined)).toBeUndefined();
  });

  it('refuses a missing backup file with a clear error before any configuration is needed', async () => {
    const io = memoryIo({});
    const code = await main(['node', 'tmsync', 'restore', 'nope.json', '--project', 'X'], io, '/tmp');
    expect(code).toBe(1);
    expect(io.err.join('\n')).toContain('cannot read the backup');
  });
});
