import { describe, expect, it } from 'vitest';
import { hasCredentials, withoutCredentials } from '../src/url-credentials.js';

describe('withoutCredentials', () => {
  it('cuts the userinfo of a URL and leaves the rest as written', () => {
    expect(withoutCredentials('http://user:secret@host:8080/api/v1')).toBe('http://host:8080/api/v1');
    expect(withoutCredentials('https://token@tms.example.com/api/v1/')).toBe('https://tms.example.com/api/v1/');
    // the last `@` before the path ends the userinfo, as URL parsers read it
    expect(withoutCredentials('http://user:p@ss@host/api/v1')).toBe('http://host/api/v1');
    expect(withoutCredentials('http://user:secret@host/api/v1|proj-1')).toBe('http://host/api/v1|proj-1');
    // a backslash, which the parser reads as a slash, does not keep them either
    expect(withoutCredentials('http://user:secret\\@host/api/v1')).not.toContain('secret');
  });

  it('leaves a URL without credentials alone, including an `@` in its path or query', () => {
    for (const url of ['http://127.0.0.1:4010/api/v1', 'HTTP://Host/api/v1/', 'http://host/api/v1?owner=a@b.c', 'http://host/@x']) {
      expect(withoutCredentials(url)).toBe(url);
      expect(hasCredentials(url)).toBe(false);
    }
    expect(hasCredentials('http://u:p@host/api/v1')).toBe(true);
  });
});
