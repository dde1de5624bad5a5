import { z } from 'zod';

/**
 * Shapes shared by every response: the envelope, page_info and the error body.
 *
 * Response objects are loose (`z.looseObject`): fields the service adds that this document does not
 * name are kept, never rejected. Where the live service differs from the interface document
 * (`real-service-notes.md`), the schema accepts both; the emulator always produces the document's
 * form.
 */

/** Unix timestamp. The document says seconds; the live service sent milliseconds. */
export const Timestamp = z.number().int().nonnegative();

/** A text field; the live service sometimes sends null where the document shows a string. */
export const Text = z.string().nullish();

/** An id reference that may be empty or null ("no folder", "no reviewer"). */
export const OptionalId = z.string().nullish();

export const PageInfo = z.looseObject({
  page_size: z.number().int(),
  total_count: z.number().int(),
  /** a URL with `page` (document) or an opaque cursor (live); empty or null when there is none */
  next: z.string().nullish(),
  prev: z.string().nullish(),
});
export type PageInfo = z.infer<typeof PageInfo>;

/** `{ message, data: { <key>: T } }` */
export function envelope<K extends string, T extends z.ZodTypeAny>(key: K, item: T) {
  return z.looseObject({
    message: z.string().optional().default(''),
    data: z.looseObject({ [key]: item } as Record<K, T>),
  });
}

/** `{ message, data: { <key>: T[] }, page_info }` */
export function pagedEnvelope<K extends string, T extends z.ZodTypeAny>(key: K, item: T) {
  return z.looseObject({
    message: z.string().optional().default(''),
    data: z.looseObject({ [key]: z.array(item) } as Record<K, z.ZodArray<T>>),
    page_info: PageInfo,
  });
}

/** A response with only a message (deletes). */
export const MessageResponse = z.looseObject({ message: z.string().optional().default('') });

/** The error body, as the live service sends it. */
export const ErrorBody = z.looseObject({
  message: z.string(),
  errors: z
    .looseObject({
      code: z.union([z.number(), z.string()]),
      message: z.string(),
      details: z.unknown().optional(),
    })
    .optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Query parameters every paginated list takes. */
export const PageQuery = z.object({
  page_size: z.coerce.number().int().optional(),
  page: z.coerce.number().int().optional(),
});

/** Defaults and bounds of pagination in the emulator (the document leaves them open). */
export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 100;
