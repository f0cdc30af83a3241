import { namespaceOf as nsFor } from './catalog';
import { schemaModel, type SchemaModel, type TypeDecl } from './xsd';

/**
 * XML-shaped value handed to the renderer: keys are element names, `#` is text
 * content, `@Name` an attribute. A key prefixed with `?` is dropped silently
 * when the target version's schema has no such element (used for elements that
 * only newer versions carry, such as UETR).
 */
export type XVal = string | XObj | undefined | null | false | XVal[];
export interface XObj {
  [key: string]: XVal;
}

/** Raised when input asks for an element the chosen version's schema does not have. */
export class SchemaMismatchError extends Error {
  constructor(
    readonly version: string,
    readonly elementPath: string,
  ) {
    super(`${elementPath} does not exist in ${version}`);
  }
}

/** Same business element, different tag across versions: newer name → older names. */
const ALIASES: Record<string, string[]> = {
  BICFI: ['BIC'],
  AnyBIC: ['BICOrBEI'],
};

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;');
}

function isEmpty(v: XVal): boolean {
  return v === undefined || v === null || v === false || v === '' || (Array.isArray(v) && v.every(isEmpty));
}

/** Renders `Document` for `version`, ordering every element by the schema's sequence. */
export function renderDocument(version: string, body: XObj): string {
  const model = schemaModel(version);
  const lines: string[] = [];
  const inner = renderChildren(model, model.rootType, body, '/Document', '  ', lines);
  if (!inner) throw new SchemaMismatchError(version, '/Document (empty)');
  return [`<Document xmlns="${nsFor(version)}">`, ...lines, '</Document>'].join('\n');
}

/** Renders `AppHdr` for a head.001 version. */
export function renderAppHdr(version: string, body: XObj): string {
  const model = schemaModel(version);
  const lines: string[] = [];
  renderChildren(model, model.rootType, body, '/AppHdr', '  ', lines);
  return [`<AppHdr xmlns="${nsFor(version)}">`, ...lines, '</AppHdr>'].join('\n');
}

function normalise(decl: TypeDecl, value: XVal): XObj | undefined {
  if (typeof value === 'string') {
    // A code or date given as plain text where this version wants a choice wrapper.
    if (decl.byName.has('Cd')) return { Cd: value };
    if (decl.byName.has('Dt') && decl.byName.has('DtTm')) return value.length > 10 ? { DtTm: value } : { Dt: value };
    return undefined;
  }
  if (Array.isArray(value) || !value) return undefined;
  // Party40Choice (Pty | Agt) in newer versions: a bare party goes under Pty.
  if (decl.byName.has('Pty') && decl.byName.has('Agt') && decl.children.length === 2 && !('Pty' in value) && !('Agt' in value)) {
    return { Pty: value };
  }
  return value;
}

function renderChildren(model: SchemaModel, typeName: string, raw: XVal, where: string, indent: string, out: string[]): boolean {
  const decl = model.complex.get(typeName);
  if (!decl) throw new SchemaMismatchError(model.version, `${where} (type ${typeName})`);
  const value = normalise(decl, raw);
  if (!value) throw new SchemaMismatchError(model.version, `${where} (expected a structure)`);
  const byElement = new Map<string, XVal>();
  for (const [rawKey, v] of Object.entries(value)) {
    if (isEmpty(v)) continue;
    const optional = rawKey.startsWith('?');
    const key = optional ? rawKey.slice(1) : rawKey;
    let target = decl.byName.has(key) ? key : ALIASES[key]?.find((alias) => decl.byName.has(alias));
    if (!target) {
      if (optional) continue;
      throw new SchemaMismatchError(model.version, `${where}/${key}`);
    }
    byElement.set(target, v);
  }
  const before = out.length;
  for (const c of decl.children) {
    const v = byElement.get(c.name);
    if (v === undefined) continue;
    const items = (Array.isArray(v) ? v : [v]).filter((x) => !isEmpty(x));
    if (items.length > c.max) throw new SchemaMismatchError(model.version, `${where}/${c.name} (at most ${c.max})`);
    for (const item of items) renderElement(model, c.name, c.type, item, `${where}/${c.name}`, indent, out);
  }
  if (decl.kind === 'choice' && byElement.size > 1) {
    throw new SchemaMismatchError(model.version, `${where} (only one of ${[...byElement.keys()].join(', ')})`);
  }
  return out.length > before;
}

function renderElement(model: SchemaModel, name: string, typeName: string, value: XVal, where: string, indent: string, out: string[]): void {
  const decl = model.complex.get(typeName);
  if (!decl) {
    // Simple type: accept a single-key wrapper produced for another version ({ Cd } / { Dt }).
    let v = value;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v).filter((k) => !isEmpty((v as XObj)[k]));
      if (keys.length === 1 && typeof (v as XObj)[keys[0]] === 'string') v = (v as XObj)[keys[0]];
    }
    if (typeof v !== 'string') throw new SchemaMismatchError(model.version, `${where} (expected text)`);
    out.push(`${indent}<${name}>${escapeText(v)}</${name}>`);
    return;
  }
  if (decl.kind === 'simpleContent') {
    const obj: XObj = typeof value === 'string' ? { '#': value } : (value as XObj);
    const attrs = Object.entries(obj)
      .filter(([k, v]) => k.startsWith('@') && typeof v === 'string')
      .map(([k, v]) => ` ${k.slice(1)}="${escapeAttr(v as string)}"`)
      .join('');
    out.push(`${indent}<${name}${attrs}>${escapeText(String(obj['#'] ?? ''))}</${name}>`);
    return;
  }
  const open = out.length;
  out.push(`${indent}<${name}>`);
  const any = renderChildren(model, typeName, value, where, indent + '  ', out);
  if (!any) {
    out.length = open; // nothing inside: leave the optional wrapper out entirely
    return;
  }
  out.push(`${indent}</${name}>`);
}
