import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { ServiceError } from './service-error.js';

/**
 * The text of a request body, decoded in the charset its Content-Type declares (UTF-8 when it
 * declares none). Bytes that are not valid in that charset are refused with a 400: a lenient decode
 * would store U+FFFD in place of what the client meant, and answer success. A charset that the
 * Encoding Standard (Node's TextDecoder) does not know is a 415 naming it.
 */
export function bodyText(body: Buffer, contentType: string | undefined): string {
  const declared = charsetOf(contentType);
  const decoder = declared === undefined ? undefined : decoderFor(declared);
  if (decoder === undefined || decoder.encoding === 'utf-8') {
    if (!isUtf8(body)) {
      throw new ServiceError(400, 'Malformed request body: it is not valid UTF-8; send the JSON encoded in UTF-8, or declare its charset in Content-Type');
    }
    return body.toString('utf8');
  }
  try {
    return decoder.decode(body);
  } catch {
    throw new ServiceError(400, `Malformed request body: it is not valid ${declared!.toUpperCase()}, the charset its Content-Type declares`);
  }
}

/** The `charset` parameter of a Content-Type, without quotes; undefined when there is none. */
function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  const value = (m?.[1] ?? m?.[2])?.trim();
  return value ? value : undefined;
}

/** Strict decoders by declared label (the labels are the Encoding Standard's, a bounded set). */
const decoders = new Map<string, TextDecoder>();

function decoderFor(label: string): TextDecoder {
  const key = label.toLowerCase();
  let decoder = decoders.get(key);
  if (!decoder) {
    try {
      decoder = new TextDecoder(key, { fatal: true });
    } catch {
      throw new ServiceError(415, `Unsupported charset "${label}" in Content-Type: send the JSON in UTF-8 (or another charset of the Encoding Standard, such as ISO-8859-1 or UTF-16LE)`);
    }
    decoders.set(key, decoder);
  }
  return decoder;
}
