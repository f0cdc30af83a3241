import { Iso20022Error } from './errors';
import { getConfig } from './config';

/**
 * Cheap checks run before any real parser sees the text, so hostile input is
 * refused in linear time: size, DTDs (which carry every entity attack: XXE,
 * billion laughs, parameter entities) and nesting depth.
 */
export function assertSafeXml(xml: unknown): string {
  if (typeof xml !== 'string') {
    throw new Iso20022Error('INVALID_XML', 'The request body must be an XML document', { pointer: '' });
  }
  const { maxBytes, maxDepth } = getConfig();
  // xml.length is a lower bound on the UTF-8 size; only count bytes when it matters.
  if (xml.length > maxBytes || (xml.length * 3 > maxBytes && Buffer.byteLength(xml, 'utf8') > maxBytes)) {
    throw new Iso20022Error('PAYLOAD_TOO_LARGE', `XML documents are limited to ${maxBytes} bytes`);
  }
  const text = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
  if (!/^\s*</.test(text)) {
    throw new Iso20022Error('INVALID_XML', 'The body is not an XML document (it must start with "<")');
  }
  if (/<!\s*(DOCTYPE|ENTITY)/i.test(text)) {
    throw new Iso20022Error(
      'XML_DTD_FORBIDDEN',
      'Document type declarations and entity declarations are not accepted (no DTD processing)',
    );
  }
  checkDepth(text, maxDepth);
  return text;
}

/** Counts element nesting with a single forward scan; stops at the first level past the limit. */
function checkDepth(xml: string, maxDepth: number): void {
  const n = xml.length;
  let depth = 0;
  let i = 0;
  while (i < n) {
    i = xml.indexOf('<', i);
    if (i < 0) return;
    const c = xml.charCodeAt(i + 1);
    if (c === 47 /* / */) {
      depth--;
      i = xml.indexOf('>', i);
      if (i < 0) return;
      continue;
    }
    if (c === 33 /* ! */) {
      const close = xml.startsWith('<!--', i) ? '-->' : xml.startsWith('<![CDATA[', i) ? ']]>' : '>';
      const j = xml.indexOf(close, i + 2);
      if (j < 0) return;
      i = j + close.length;
      continue;
    }
    if (c === 63 /* ? */) {
      const j = xml.indexOf('?>', i + 2);
      if (j < 0) return;
      i = j + 2;
      continue;
    }
    // Start tag: find its end, skipping '>' inside quoted attribute values.
    let j = i + 1;
    let quote = 0;
    for (; j < n; j++) {
      const ch = xml.charCodeAt(j);
      if (quote) {
        if (ch === quote) quote = 0;
      } else if (ch === 34 || ch === 39) quote = ch;
      else if (ch === 62) break;
    }
    if (xml.charCodeAt(j - 1) !== 47) {
      depth++;
      if (depth > maxDepth) {
        throw new Iso20022Error('XML_TOO_DEEP', `Elements are nested deeper than the limit of ${maxDepth} levels`);
      }
    }
    i = j + 1;
  }
}
