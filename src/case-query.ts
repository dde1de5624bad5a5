import type { RemoteCase } from './model.js';

/**
 * One targeted read of the case list: `ref` is a case id or human id (the list's `search` for a
 * human id, a GET for a uuid); `title` is the list of one folder filtered by title
 * (`folder_id` + `title__CONTAINS`), keeping the cases whose trimmed title is exactly `title`.
 */
export type CaseQuery = { by: 'ref'; ref: string } | { by: 'title'; folderId: string; title: string };

/** Does `c` answer `q`? The rule both the client's reads and the in-memory simulation keep. */
export function answersQuery(c: RemoteCase, q: CaseQuery): boolean {
  if (q.by === 'ref') return c.id === q.ref || (c.humanId !== '' && c.humanId.toLowerCase() === q.ref.toLowerCase());
  return c.folderId === q.folderId && c.title.trim() === q.title;
}

