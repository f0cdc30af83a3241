import { Iso20022Error } from './errors';
import { getConfig } from './config';

/** One element of a parsed message, with namespace prefixes stripped and its source offset kept. */
export interface XEl {
  name: string;
  prefix: string;
  attrs: Record<string, string>;
  text: string;
  kids: Record<string, XEl[]>;
  parent: XEl | null;
  /** 1-based position among siblings of the same name, and how many there are. */
  index: number;
  siblings: number;
  /** Offset of '<' in the source text. */
  start: number;
  end: number;
  /** xmlns declarations made on this element (prefix '' = default namespace). */
  ns?: Record<string, string>;
}

export interface ParsedXml {
  xml: string;
  root: XEl;
  /** Lazily built start offsets of each line, for offset → line/column. */
  lineStarts?: number[];
}

const NAME = /[A-Za-z_\u00C0-\uFFFF][\w.\-\u00B7\u00C0-\uFFFF]*(?::[A-Za-z_\u00C0-\uFFFF][\w.\-\u00B7\u00C0-\uFFFF]*)?/y;
const ATTR = /\s+([A-Za-z_\u00C0-\uFFFF][\w.\-:\u00B7\u00C0-\uFFFF]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/y;
const TAG_END = /\s*(\/?)>/y;
const END_TAG = /<\/([^\s>]+)\s*>/y;
const BAD_AMP = /&(?!(?:#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);)/;
const ENTITY = /&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g;
const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(raw: string): string {
  return raw.replace(ENTITY, (_m, ref: string) => {
    if (ref[0] !== '#') return PREDEFINED[ref];
    const cp = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : '\uFFFD';
  });
}

/**
 * A small non-validating XML parser: elements, attributes, text, CDATA,
 * comments and processing instructions, the predefined entities and
 * character references. DTDs never reach it (refused by the safety check),
 * so no entity can expand. It checks well-formedness and records each
 * element's source offsets, which validation uses for line/column.
 */
export function parseTree(xml: string): ParsedXml {
  const doc = { xml } as ParsedXml;
  const fail = (offset: number, msg: string): never => {
    const { line, column } = lineColumn(doc, offset);
    throw new Iso20022Error('INVALID_XML', `Malformed XML at line ${line}, column ${column}: ${msg}`);
  };
  const maxDepth = getConfig().maxDepth;
  const stack: XEl[] = [];
  const qnames: string[] = [];
  let root: XEl | null = null;
  let i = 0;
  const n = xml.length;
  while (i < n) {
    const lt = xml.indexOf('<', i);
    const chunk = xml.slice(i, lt < 0 ? n : lt);
    if (chunk) {
      const top = stack[stack.length - 1];
      if (top) {
        if (chunk.includes('&')) {
          if (BAD_AMP.test(chunk)) fail(i + chunk.search(BAD_AMP), 'unescaped "&" or undefined entity');
          top.text += decode(chunk);
        } else top.text += chunk;
      } else if (chunk.trim()) fail(i, 'text outside the root element');
    }
    if (lt < 0) break;
    const c = xml.charCodeAt(lt + 1);
    if (c === 47 /* / */) {
      END_TAG.lastIndex = lt;
      const m = END_TAG.exec(xml);
      if (!m) fail(lt, 'malformed end tag');
      const el = stack.pop();
      const qname = qnames.pop();
      if (!el || qname !== m![1]) fail(lt, el ? `expected </${qname}> but found </${m![1]}>` : `unexpected </${m![1]}>`);
      el!.end = END_TAG.lastIndex - 1;
      close(el!);
      i = END_TAG.lastIndex;
      continue;
    }
    if (c === 33 /* ! */) {
      if (xml.startsWith('<!--', lt)) {
        const end = xml.indexOf('-->', lt + 4);
        if (end < 0) fail(lt, 'unterminated comment');
        i = end + 3;
      } else if (xml.startsWith('<![CDATA[', lt)) {
        const end = xml.indexOf(']]>', lt + 9);
        if (end < 0) fail(lt, 'unterminated CDATA section');
        const top = stack[stack.length - 1];
        if (!top) fail(lt, 'CDATA outside the root element');
        top!.text += xml.slice(lt + 9, end);
        i = end + 3;
      } else {
        fail(lt, 'declarations are not allowed');
      }
      continue;
    }
    if (c === 63 /* ? */) {
      const end = xml.indexOf('?>', lt + 2);
      if (end < 0) fail(lt, 'unterminated processing instruction');
      i = end + 2;
      continue;
    }
    NAME.lastIndex = lt + 1;
    const nm = NAME.exec(xml);
    if (!nm) fail(lt, 'invalid element name');
    const qname = nm![0];
    const parent = stack[stack.length - 1] ?? null;
    if (!parent && root) fail(lt, 'more than one root element');
    const colon = qname.indexOf(':');
    const el: XEl = {
      name: colon >= 0 ? qname.slice(colon + 1) : qname,
      prefix: colon >= 0 ? qname.slice(0, colon) : '',
      attrs: {},
      text: '',
      kids: {},
      parent,
      index: 1,
      siblings: 1,
      start: lt,
      end: lt,
    };
    let p = NAME.lastIndex;
    const seen = new Set<string>();
    for (;;) {
      TAG_END.lastIndex = p;
      const te = TAG_END.exec(xml);
      if (te) {
        p = TAG_END.lastIndex;
        if (te[1]) {
          el.end = p - 1;
        } else {
          stack.push(el);
          qnames.push(qname);
          if (stack.length > maxDepth) {
            throw new Iso20022Error('XML_TOO_DEEP', `Elements are nested deeper than the limit of ${maxDepth} levels`);
          }
        }
        break;
      }
      ATTR.lastIndex = p;
      const am = ATTR.exec(xml);
      if (!am) fail(p, `malformed attribute or tag <${qname}>`);
      const [, attr, dq, sq] = am!;
      if (seen.has(attr)) fail(p, `duplicate attribute ${attr}`);
      seen.add(attr);
      let value = dq ?? sq ?? '';
      if (value.includes('&')) {
        if (BAD_AMP.test(value)) fail(p, 'unescaped "&" or undefined entity in attribute');
        value = decode(value);
      }
      if (attr === 'xmlns' || attr.startsWith('xmlns:')) (el.ns ??= {})[attr === 'xmlns' ? '' : attr.slice(6)] = value;
      else el.attrs[attr.includes(':') ? attr.slice(attr.indexOf(':') + 1) : attr] = value;
      p = ATTR.lastIndex;
    }
    if (parent) {
      const list = parent.kids[el.name];
      if (list) {
        el.index = list.length + 1;
        list.push(el);
      } else parent.kids[el.name] = [el];
    } else root = el;
    if (el.end !== lt) close(el); // self-closing
    i = p;
  }
  if (stack.length) fail(n, `unclosed element <${qnames[qnames.length - 1]}>`);
  if (!root) fail(0, 'no root element');
  doc.root = root!;
  return doc;
}

function close(el: XEl): void {
  el.text = el.text.trim();
  for (const list of Object.values(el.kids)) {
    if (list.length > 1) for (const k of list) k.siblings = list.length;
  }
}

/** Namespace URI of an element, resolved through its ancestors' declarations. */
export function namespaceOf(el: XEl): string | undefined {
  for (let cur: XEl | null = el; cur; cur = cur.parent) {
    const uri = cur.ns?.[el.prefix];
    if (uri !== undefined) return uri;
  }
  return undefined;
}

/** Every namespace declaration in scope at `el` (nearest wins). */
export function namespacesInScope(el: XEl): Record<string, string> {
  const out: Record<string, string> = {};
  for (let cur: XEl | null = el; cur; cur = cur.parent) {
    for (const [p, uri] of Object.entries(cur.ns ?? {})) if (!(p in out)) out[p] = uri;
  }
  return out;
}

// --- navigation helpers (all tolerate missing elements) ---------------------

export function child(el: XEl | undefined, ...names: string[]): XEl | undefined {
  let cur = el;
  for (const n of names) {
    cur = cur?.kids[n]?.[0];
    if (!cur) return undefined;
  }
  return cur;
}

export function children(el: XEl | undefined, name: string): XEl[] {
  return el?.kids[name] ?? [];
}

/** Text of a descendant (or of `el` itself without names); undefined when absent or empty. */
export function text(el: XEl | undefined, ...names: string[]): string | undefined {
  const target = names.length ? child(el, ...names) : el;
  if (!target) return undefined;
  return target.text === '' ? undefined : target.text;
}

export function texts(el: XEl | undefined, name: string): string[] | undefined {
  const list = children(el, name)
    .map((c) => c.text)
    .filter((t) => t !== '');
  return list.length ? list : undefined;
}

/** XPath-like location, e.g. /Document/CstmrCdtTrfInitn/PmtInf[2]/CdtTrfTxInf/PmtId/EndToEndId. */
export function pathOf(el: XEl): string {
  const parts: string[] = [];
  for (let cur: XEl | null = el; cur; cur = cur.parent) {
    parts.push(cur.siblings > 1 ? `${cur.name}[${cur.index}]` : cur.name);
  }
  return '/' + parts.reverse().join('/');
}

/** Depth-first walk over every element. */
export function walk(el: XEl, visit: (e: XEl) => void): void {
  visit(el);
  for (const list of Object.values(el.kids)) for (const k of list) walk(k, visit);
}

export function lineColumn(doc: ParsedXml, offset: number): { line: number; column: number } {
  if (!doc.lineStarts) {
    const starts = [0];
    const xml = doc.xml;
    for (let i = xml.indexOf('\n'); i >= 0; i = xml.indexOf('\n', i + 1)) starts.push(i + 1);
    doc.lineStarts = starts;
  }
  const starts = doc.lineStarts;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo] + 1 };
}
