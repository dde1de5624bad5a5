/**
 * Where a service answer says its item can be seen in the service's web UI. Services name the
 * field differently: the emulator's `web_url`, a GitHub-style `html_url`, the execution
 * interface's `app_url`. Page links are tried before a plain `url`, which some APIs use for the
 * item's API address instead of its page.
 */
export const WEB_LINK_FIELDS = ['web_url', 'html_url', 'app_url', 'run_url', 'link', 'url'] as const;

/** An http(s) address with no spaces or control characters: it is printed on a terminal as it is. */
// eslint-disable-next-line no-control-regex
const PRINTABLE_HTTP_URL = /^https?:\/\/[^\s\u0000-\u001f\u007f-\u009f]+$/i;

/** The first of {@link WEB_LINK_FIELDS} holding a printable http(s) URL; undefined when the answer has none. */
export function webLink(answer: unknown): string | undefined {
  if (answer === null || typeof answer !== 'object') return undefined;
  const o = answer as Record<string, unknown>;
  for (const key of WEB_LINK_FIELDS) {
    const v = o[key];
    if (typeof v === 'string' && PRINTABLE_HTTP_URL.test(v)) return v;
  }
  return undefined;
}
