import { describe, expect, it } from 'vitest';
import { WEB_LINK_FIELDS, webLink } from '../../src/remote/web-link.js';

describe('webLink: the web UI page a service answer links to', () => {
  it('takes any of web_url, html_url, app_url, run_url, link and url', () => {
    for (const key of WEB_LINK_FIELDS) expect(webLink({ id: '1', [key]: 'https://tms.example/p/1' }), key).toBe('https://tms.example/p/1');
  });

  it('prefers a page link to a plain url, which some APIs use for the API address', () => {
    expect(webLink({ url: 'https://api.example/v1/runs/1', html_url: 'https://tms.example/runs/1' })).toBe('https://tms.example/runs/1');
    expect(webLink({ url: 'https://api.example/v1/runs/1', web_url: 'http://127.0.0.1:4010/ui/projects/DEMO/runs/DEMO-R-1' })).toBe(
      'http://127.0.0.1:4010/ui/projects/DEMO/runs/DEMO-R-1',
    );
  });

  it('gives nothing for an answer without a link, and for values that are not printable http(s) URLs', () => {
    expect(webLink({ id: '1', title: 'Nightly', status: 'ACTIVE' })).toBeUndefined();
    expect(webLink(undefined)).toBeUndefined();
    expect(webLink('https://tms.example/')).toBeUndefined();
    expect(webLink({ web_url: '' })).toBeUndefined();
    expect(webLink({ web_url: 'javascript:alert(1)' })).toBeUndefined();
    expect(webLink({ web_url: 'ftp://tms.example/runs/1' })).toBeUndefined();
    expect(webLink({ web_url: 'https://tms.example/runs/1\u001b[2J' })).toBeUndefined();
    expect(webLink({ web_url: 'https://tms.example/runs/1\nView run: https://evil.example' })).toBeUndefined();
    expect(webLink({ web_url: { href: 'https://tms.example/' } })).toBeUndefined();
  });

  it('skips a field that holds no URL and takes the next one', () => {
    expect(webLink({ web_url: null, link: 'see the UI', url: 'https://tms.example/runs/1' })).toBe('https://tms.example/runs/1');
  });
});
