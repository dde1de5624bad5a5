import { TmsyncError } from '../errors.js';
import { ApiError } from './api-error.js';

export type Query = Record<string, string | number | undefined>;

export interface PageShape {
  data: Record<string, unknown>;
  page_info?: { next?: string | null; page_size?: number; total_count?: number };
}

interface PaginateOptions {
  /** the key of `data` that holds the items */
  key: string;
  /** the caller's filters */
  base: Query;
  /** `page_size` to send */
  pageSize: number;
  /** the parameter an opaque cursor goes back in */
  cursorParam: string;
  /** URLs in `next` are resolved against it; only their query is used */
  baseUrl: string;
  /**
   * Pages fetched ahead when `next` is a URL with a `page` number and `total_count` is known:
   * the remaining page numbers are then certain, and reading them one by one would make a long
   * list a chain of round trips. 0 follows `next` strictly one page at a time.
   */
  prefetch: number;
  /** for messages: `GET /projects/:project_id/test_cases` */
  describe: string;
  endpoint: string;
  /**
   * Pages read at most from a list whose answers give no `total_count` (with a total, the bound is
   * `ceil(total_count / page_size) + 2`). @default 10000
   */
  maxPages?: number;
}

/** Pages of a list without `total_count` read before the walk stops as endless. */
const DEFAULT_MAX_PAGES = 10_000;

function looksLikeUrl(next: string): boolean {
  return /^https?:\/\//i.test(next) || next.startsWith('/') || next.startsWith('?');
}

/** The query of the next page: a URL's own parameters (its host is never trusted with the key), or a cursor. */
function nextQuery(next: string, o: PaginateOptions, sizeSent: boolean): Query {
  if (looksLikeUrl(next)) {
    const q: Query = {};
    for (const [k, v] of new URL(next, `${o.baseUrl}/`).searchParams) q[k] = v;
    if (sizeSent && q.page_size === undefined) q.page_size = o.pageSize;
    return q;
  }
  return { ...o.base, ...(sizeSent ? { page_size: o.pageSize } : {}), [o.cursorParam]: next };
}

function canonical(q: Query): string {
  return JSON.stringify(Object.entries(q).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The page numbers still to read, when `next` names one and the total says where the list ends. */
function pagePlan(q: Query, info: PageShape['page_info']): { from: number; to: number } | undefined {
  const from = Number(q.page);
  const size = info?.page_size;
  const total = info?.total_count;
  if (!Number.isInteger(from) || from < 1 || !size || size < 1 || total === undefined) return undefined;
  const to = Math.ceil(total / size);
  return to >= from ? { from, to } : undefined;
}

const refusedSize = (err: unknown) =>
  err instanceof ApiError && err.code === 'invalid_request' && (err.status === 400 || err.status === 422);

/** Walks of one list at most: the first, and the ones redone because the list changed under it. */
const MAX_WALKS = 3;

/** Why a walk cannot be trusted to hold every item: the list changed while it was read. */
interface Change {
  kind: 'twice' | 'fell' | 'short';
  text: string;
}

/** The id a list item is known by, when it has one (dedupe and the change checks use it). */
function idOf(x: unknown): string | undefined {
  const id = x && typeof x === 'object' ? (x as { id?: unknown }).id : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Every item of a paginated list, each once. Sends `page_size` (and falls back to the service's
 * default once if the first page refuses it), follows `next` until it is empty or null, and reads
 * no page twice in one walk (a service that sends one again stops the walk with `pagination_loop`).
 *
 * A list that changes while it is walked can shift under an offset (a deletion before the pages
 * still to read moves an item onto a page already read: it is never seen). Such a walk is told
 * by what it sees: an item that comes twice, a `total_count` that falls, fewer items than the
 * last `total_count`. The first two stop the walk at once; then the list is walked again from its
 * first page, handing out only the items not handed out yet, up to {@link MAX_WALKS} walks in all
 * (`list_changed` after that). A later walk that still falls short of the total but brings no new
 * item, and saw neither of the others, ends it: the total is off, not the list. A total that
 * grows is followed (items added at the end shift nothing; added before, they come twice). Items are handed
 * out as their pages arrive, so an item deleted during the walks may be among them, as if read
 * just before it was deleted.
 */
export async function* paginatePages(fetchPage: (q: Query) => Promise<PageShape>, o: PaginateOptions): AsyncGenerator<unknown> {
  const given = new Set<string>();
  const shared: WalkShared = { sizeSent: true };
  const changes: string[] = [];
  for (let n = 1; n <= MAX_WALKS; n++) {
    const outcome = yield* walkOnce(fetchPage, o, given, shared, n === 1);
    if (!outcome.change) return;
    changes.push(outcome.change.text);
    if (n > 1 && outcome.change.kind === 'short' && outcome.fresh === 0) return;
  }
  throw new TmsyncError('list_changed', `${o.describe}: the list changed while it was read, ${MAX_WALKS} times in a row (${changes.join('; ')})`, {
    hint: 'others are changing the project while it is read: run the command again; if it keeps failing, the service pages inconsistently (try a lower page_size)',
    details: { endpoint: o.endpoint, walks: MAX_WALKS },
  });
}

interface WalkShared {
  /** false once the service refused `page_size`: later walks do not send it either */
  sizeSent: boolean;
}

/**
 * The bookkeeping of one walk: counts pages and items against what the service says the list
 * holds, notices what makes the walk untrustworthy (`change`), and picks the items to hand out.
 */
class WalkAccount {
  /** the ids this walk read: the first walk's are exactly the ones given out, so one set serves both */
  private readonly ids: Set<string>;
  distinct = 0;
  fresh = 0;
  change: Change | undefined;
  lastTotal: number | undefined;
  private highestTotal: number | undefined;
  // a `next` that keeps advancing must not be followed forever: every page handed out is counted
  // against what the service says the list holds (the largest total seen: items may be added
  // while the list is read), or, without a total, against max_pages
  private readonly maxPages: number;
  private pagesRead = 0;
  private itemsRead = 0;
  private total: number | undefined;
  // the total of the first page that gave one: a total that grows on every page (a hostile or
  // broken service) would otherwise move the page bound ahead of the walk forever
  private firstTotal: number | undefined;
  private size: number | undefined;
  // the most items one page brought: a service that sends fewer than its page_size says must not
  // look endless
  private mostOnAPage = 0;

  constructor(
    private readonly o: PaginateOptions,
    private readonly given: Set<string>,
    private readonly first: boolean,
  ) {
    this.ids = first ? given : new Set<string>();
    this.maxPages = o.maxPages ?? DEFAULT_MAX_PAGES;
  }

  /** Counts one page (`sent`: the page_size asked for) and answers the items to hand out. */
  account(p: PageShape, sent: number | undefined): unknown[] {
    const list = (p.data[this.o.key] as unknown[] | undefined) ?? [];
    this.mostOnAPage = Math.max(this.mostOnAPage, list.length);
    this.pagesRead++;
    this.itemsRead += list.length;
    this.noteTotal(p.page_info?.total_count);
    const ps = p.page_info?.page_size;
    if (typeof ps === 'number' && ps > 0) this.size = Math.max(this.size ?? 0, ps);
    else if (this.size === undefined && sent !== undefined) this.size = sent;
    else if (this.size === undefined && list.length > 0) this.size = list.length;
    this.checkBounds();
    return this.take(list);
  }

  /** After the last page: fewer items than the service says it holds means some were passed over. */
  finish(): { change?: Change; fresh: number } {
    if (this.lastTotal !== undefined && this.distinct < this.lastTotal) {
      this.change = { kind: 'short', text: `${this.distinct} items read, but total_count says ${this.lastTotal}` };
    }
    return { change: this.change, fresh: this.fresh };
  }

  private noteTotal(t: unknown): void {
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) return;
    // a total below one seen before: items were deleted, and an offset may have moved past some
    if (this.highestTotal !== undefined && t < this.highestTotal) this.change ??= { kind: 'fell', text: `total_count fell from ${this.highestTotal} to ${t}` };
    this.highestTotal = Math.max(this.highestTotal ?? 0, t);
    this.lastTotal = t;
    this.total = Math.max(this.total ?? 0, t);
  }

  private checkBounds(): void {
    const { total, pagesRead, itemsRead, maxPages } = this;
    if (total === undefined) {
      if (pagesRead > maxPages) throw this.runaway(`more than ${maxPages} pages (max_pages) and the service gives no total_count`);
      return;
    }
    if (itemsRead > total) throw this.runaway(`${itemsRead} items read, but the service says the list holds ${total} (total_count)`);
    const per = Math.max(1, this.mostOnAPage > 0 ? Math.min(this.size ?? this.mostOnAPage, this.mostOnAPage) : (this.size ?? 1));
    const bound = Math.ceil(total / per) + 2;
    if (pagesRead > bound) throw this.runaway(`${pagesRead} pages read, more than the ${bound} that ${total} items (total_count) in pages of ${per} need`);
    const firstTotal = (this.firstTotal ??= total);
    // growth while the list is read is followed, up to max_pages beyond what the first total needed
    if (total > firstTotal && pagesRead > Math.max(maxPages, Math.ceil(firstTotal / per) + 2)) {
      throw this.runaway(`${pagesRead} pages read while total_count kept growing (${firstTotal} when the walk began, ${total} now), more than ${maxPages} (max_pages)`);
    }
  }

  private take(list: unknown[]): unknown[] {
    const out: unknown[] = [];
    for (const x of list) {
      const id = idOf(x);
      if (id === undefined) {
        // nothing to know it by: counted, and handed out by the first walk only
        this.distinct++;
        if (this.first) out.push(x);
        continue;
      }
      if (this.ids.has(id)) {
        this.change ??= { kind: 'twice', text: `item ${id} came twice` };
        continue;
      }
      this.ids.add(id);
      this.distinct++;
      if (!this.first) {
        if (this.given.has(id)) continue;
        this.given.add(id);
      }
      this.fresh++;
      out.push(x);
    }
    return out;
  }

  private runaway(why: string): TmsyncError {
    const { o, pagesRead, itemsRead, total } = this;
    return new TmsyncError('pagination_runaway', `${o.describe}: stopped reading the list: ${why}`, {
      hint: 'the service keeps sending a next page; check base_url points at the service, or raise max_pages in tmsync.yaml if the list is really that long',
      details: { endpoint: o.endpoint, pages: pagesRead, items: itemsRead, ...(total !== undefined ? { total_count: total } : {}) },
    });
  }
}

/** Fetches each query once: the same page asked twice means the service's `next` loops. */
function fetchEachOnce(fetchPage: (q: Query) => Promise<PageShape>, o: PaginateOptions): (q: Query) => Promise<PageShape> {
  const seen = new Set<string>();
  return (q) => {
    const k = canonical(q);
    if (seen.has(k)) {
      throw new TmsyncError('pagination_loop', `${o.describe}: the service sent the same page twice`, {
        hint: 'the service paginates inconsistently; try again, or lower page_size',
        details: { endpoint: o.endpoint },
      });
    }
    seen.add(k);
    return fetchPage(q);
  };
}

/**
 * One walk of the list from its first page: yields the items `given` does not hold yet (adding
 * them), returns what made it untrustworthy, if anything, and how many items it handed out.
 */
async function* walkOnce(
  fetchPage: (q: Query) => Promise<PageShape>,
  o: PaginateOptions,
  given: Set<string>,
  shared: WalkShared,
  first: boolean,
): AsyncGenerator<unknown, { change?: Change; fresh: number }> {
  const fetchOnce = fetchEachOnce(fetchPage, o);
  const walk = new WalkAccount(o, given, first);
  const account = (p: PageShape, sent: number | undefined) => walk.account(p, sent);
  let page: PageShape;
  const sent = () => (shared.sizeSent ? o.pageSize : undefined);
  if (shared.sizeSent) {
    try {
      page = await fetchOnce({ ...o.base, page_size: o.pageSize });
    } catch (err) {
      if (!first || !refusedSize(err)) throw err;
      shared.sizeSent = false;
      page = await fetchOnce({ ...o.base });
    }
  } else {
    page = await fetchOnce({ ...o.base });
  }
  yield* account(page, sent());
  // an item that came twice, or a total that fell: the walk cannot be trusted, read no further
  if (walk.change) return { change: walk.change, fresh: walk.fresh };

  for (;;) {
    const next = page.page_info?.next;
    if (!next) break;
    const q = nextQuery(next, o, shared.sizeSent);
    const plan = o.prefetch > 0 ? pagePlan(q, page.page_info) : undefined;
    if (!plan) {
      page = await fetchOnce(q);
      yield* account(page, sent());
      if (walk.change) return { change: walk.change, fresh: walk.fresh };
      continue;
    }
    // the remaining pages are known: keep `prefetch` of them in flight, hand them out in order
    const pending: Promise<PageShape>[] = [];
    let upcoming = plan.from;
    const startNext = () => {
      const p = fetchOnce({ ...q, page: String(upcoming++) });
      p.catch(() => undefined); // awaited in order below; an early failure must not go unhandled
      pending.push(p);
    };
    while (pending.length < o.prefetch && upcoming <= plan.to) startNext();
    while (pending.length > 0) {
      page = await pending.shift()!;
      while (pending.length < o.prefetch && upcoming <= plan.to) startNext();
      yield* account(page, sent());
      // the pages still in flight are left to settle unread
      if (walk.change) return { change: walk.change, fresh: walk.fresh };
    }
    // the last page's `next` is followed as usual (items may have been added meanwhile)
  }
  return walk.finish();
}
