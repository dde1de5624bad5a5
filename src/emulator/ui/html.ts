/**
 * HTML for the web UI, escaped by construction: the `html` tag escapes every interpolated value
 * unless it is already `Html` (the result of another `html` call), so a hostile title such as
 * `<script>` is always shown as text.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

function render(v: Interpolation): string {
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0];
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1];
  });
  return new Html(out);
}

/** A path segment, percent-encoded (ids and human ids go into links through this). */
export const seg = (s: string | number): string => encodeURIComponent(String(s));

/** A CSS class for a result name: `Passed` → `st-passed`, none → `st-none`. */
export function statusClass(name: string | null | undefined): string {
  const slug = (name ?? '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return `st-${slug || 'none'}`;
}

/** Unix seconds as `2026-11-23 11:48 UTC`. */
export function when(sec: number | null | undefined): string {
  if (sec === null || sec === undefined) return '—';
  // a live-dialect database stores milliseconds (year 5138 in seconds is the cut)
  return `${new Date(sec < 100_000_000_000 ? sec * 1000 : sec).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export interface Crumb {
  label: string;
  href?: string;
}

/** The page frame: viewport meta for narrow screens, the stylesheet, the navigation. */
export function layout(title: string, body: Html, opts: { crumbs?: Crumb[]; signedIn?: boolean } = {}): string {
  const crumbs = opts.crumbs ?? [];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · tmsync emulator</title>
<link rel="stylesheet" href="/ui/style.css">
<link rel="icon" href="/ui/favicon.svg" type="image/svg+xml">
</head>
<body>
<header class="top">
<a class="brand" href="/ui/">tmsync emulator</a>
${opts.signedIn ? html`<nav><a href="/ui/">Projects</a> <a href="/ui/runs">Execution runs</a>
<form method="post" action="/ui/logout" class="inline"><button type="submit">Sign out</button></form></nav>` : ''}
</header>
<main>
${crumbs.length ? html`<nav class="crumbs" aria-label="breadcrumbs">${crumbs.map((c, i) => html`${i ? ' › ' : ''}${c.href ? html`<a href="${c.href}">${c.label}</a>` : html`<span>${c.label}</span>`}`)}</nav>` : ''}
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`.text;
}

const PAGE_SIZE = 50;

/** The 1-based page asked for in `?page=` (1 when absent or not a positive integer). */
export function pageOf(query: unknown): number {
  const raw = (query as { page?: unknown } | undefined)?.page;
  const n = typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : 1;
  return n >= 1 ? n : 1;
}

export function pageRequest(page: number): { limit: number; offset: number } {
  return { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE };
}

/** Previous / next links for a paged list (nothing when it fits on one page). */
export function pager(basePath: string, page: number, total: number): Html {
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  if (pages <= 1) return html``;
  const link = (p: number) => `${basePath}?page=${p}`;
  return html`<nav class="pager" aria-label="pages">
${page > 1 ? html`<a rel="prev" href="${link(page - 1)}">← Previous</a>` : ''}
<span>Page ${page} of ${pages} (${total} in all)</span>
${page < pages ? html`<a rel="next" href="${link(page + 1)}">Next →</a>` : ''}
</nav>`;
}

/** A column of a list table: its heading, and a class for its cells (`pre` keeps line breaks). */
interface Column {
  label: string;
  cls?: string;
}

/**
 * A list table. Below 40rem its rows become cards and the headings are hidden, so each cell carries
 * its column's heading in `data-label` and the stylesheet shows it before the value (no inline
 * style: the Content-Security-Policy allows none).
 */
export function listTable(columns: readonly Column[], rows: readonly (readonly Interpolation[])[]): Html {
  return html`<table class="wide"><thead><tr>${columns.map((c) => html`<th>${c.label}</th>`)}</tr></thead><tbody>
${rows.map(
  (cells) => html`<tr>${cells.map((v, i) => html`<td data-label="${columns[i].label}"${columns[i].cls ? html` class="${columns[i].cls}"` : ''}>${v}</td>`)}</tr>
`,
)}</tbody></table>`;
}
