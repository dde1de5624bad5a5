/**
 * A service URL may carry credentials (`http://user:secret@host/api/v1`, for a proxy or a basic-auth
 * gateway). They are used for the requests and nothing else: every URL tmsync writes to a file
 * (a backup's source, the read cache, a pulled or started `tmsync.yaml`, a migration's journal key)
 * or prints goes through {@link withoutCredentials} first.
 */

/** The scheme and authority's userinfo: everything up to the last `@` before the path. */
const USERINFO = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/;

/** The URL without its userinfo (`user:secret@`), otherwise as given; text that is not a URL is returned as it is, userinfo cut. */
export function withoutCredentials(url: string): string {
  const cut = url.replace(USERINFO, '$1');
  try {
    const u = new URL(cut);
    if (u.username === '' && u.password === '') return cut;
    // what the pattern did not see, the parser did
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return cut;
  }
}

/** Whether the URL carries a user name or a password. */
export function hasCredentials(url: string): boolean {
  return withoutCredentials(url) !== url;
}
