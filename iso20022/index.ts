/**
 * ISO 20022 public API: detect, parse (XML → JSON), generate (JSON → XML),
 * validate (XSD + business rules) and the list of supported types.
 */
import { Iso20022Error } from './errors';
import { renderAppHdr, renderDocument, SchemaMismatchError } from './build';
import {
  availableVersions, DEFAULT_HEAD_VERSION, HEAD_TYPE, isMessageType, MESSAGE_TYPES, namespaceOf as nsOfVersion, splitNamespace,
  supportedTypes, versionsOf, type MessageType, type SupportedTypes,
} from './catalog';
import { appHdrInput, buildAppHdr, parseAppHdr } from './messages/head001';
import { admi002 } from './messages/admi002';
import { camt053, camt054 } from './messages/statement';
import { camt056 } from './messages/camt056';
import { pacs002 } from './messages/pacs002';
import { pacs008 } from './messages/pacs008';
import { pain001 } from './messages/pain001';
import { pain002 } from './messages/pain002';
import type { Json, MessageHandler } from './messages/types';
import { RULES } from './rule-catalog';
import { businessRules } from './rules';
import { assertSafeXml } from './safety';
import { lineColumn, namespaceOf, namespacesInScope, parseTree, pathOf, walk, type ParsedXml, type XEl } from './xml';
import { validateAgainstXsd } from './xsd';

export { supportedTypes, type SupportedTypes };

const HANDLERS: Record<MessageType, MessageHandler> = {
  'pacs.008': pacs008,
  'pacs.002': pacs002,
  'pain.001': pain001,
  'pain.002': pain002,
  'camt.053': camt053,
  'camt.054': camt054,
  'camt.056': camt056,
  'admi.002': admi002,
};

/** Wrapper element used when generate adds a head.001 AppHdr; parse/validate accept any wrapper name. */
export const ENVELOPE_ELEMENT = 'Envelope';

export interface DetectedMessage {
  message_type: MessageType;
  /** Base ISO version, e.g. pain.001.001.03 (also for a national variant). */
  version: string;
  namespace: string;
  /** National variant suffix of the namespace, e.g. "ch.02". */
  variant?: string;
  business_application_header: { version: string | null; namespace: string | null } | null;
}

interface Loaded {
  parsed: ParsedXml;
  document: XEl;
  /** The message element inside Document (e.g. CstmrCdtTrfInitn), when present. */
  root?: XEl;
  appHdr?: XEl;
  detected: DetectedMessage;
}

function unsupported(detail: string): Iso20022Error {
  return new Iso20022Error('UNSUPPORTED_MESSAGE_TYPE', detail);
}

/** Finds Document and AppHdr: at the root, or inside an envelope (up to four levels down). */
function locate(root: XEl): { document?: XEl; appHdr?: XEl } {
  if (root.name === 'Document') return { document: root };
  if (root.name === 'AppHdr') return { appHdr: root };
  let document: XEl | undefined;
  let appHdr: XEl | undefined;
  let level: XEl[] = [root];
  for (let depth = 0; depth < 4 && level.length && !(document && appHdr); depth++) {
    const next: XEl[] = [];
    for (const el of level) {
      for (const [name, kids] of Object.entries(el.kids)) {
        if (name === 'Document') document ??= kids[0];
        else if (name === 'AppHdr') appHdr ??= kids[0];
        else next.push(...kids);
      }
    }
    level = next;
  }
  return { document, appHdr };
}

function load(xml: unknown, opts: { trusted?: boolean } = {}): Loaded {
  const text = opts.trusted ? (xml as string) : assertSafeXml(xml);
  const parsed = parseTree(text);
  const { document, appHdr } = locate(parsed.root);
  if (!document) {
    throw unsupported(`No ISO 20022 <Document> element found (root element is <${parsed.root.name}>)`);
  }
  const ns = namespaceOf(document);
  if (!ns) throw unsupported('The <Document> element has no namespace, so its message type cannot be determined');
  const split = splitNamespace(ns);
  if (!split) throw unsupported(`Namespace "${ns}" is not an ISO 20022 message namespace`);
  if (!isMessageType(split.type)) {
    throw unsupported(`${split.type} messages are not supported; supported types: ${Object.keys(MESSAGE_TYPES).join(', ')}`);
  }
  if (!availableVersions().has(split.version)) {
    throw unsupported(`${split.version} is not supported; supported ${split.type} versions: ${versionsOf(split.type).join(', ')}`);
  }
  let header: DetectedMessage['business_application_header'] = null;
  if (appHdr) {
    const hns = namespaceOf(appHdr) ?? null;
    const hsplit = hns ? splitNamespace(hns) : null;
    header = { version: hsplit?.type === HEAD_TYPE ? hsplit.version : null, namespace: hns };
  }
  const root = document.kids[MESSAGE_TYPES[split.type].root]?.[0];
  return {
    parsed,
    document,
    root,
    appHdr,
    detected: {
      message_type: split.type,
      version: split.version,
      namespace: ns,
      ...(split.variant ? { variant: split.variant } : {}),
      business_application_header: header,
    },
  };
}

/** Type, version and namespace of a message, without parsing its content. */
export function detectMessage(xml: unknown): DetectedMessage {
  return load(xml).detected;
}

export type ParsedMessage = Json & {
  message_type: MessageType;
  version: string;
  namespace: string;
  variant?: string;
  business_application_header?: Json;
};

export function parseMessage(xml: unknown): ParsedMessage {
  const l = load(xml);
  const { message_type, version, namespace, variant } = l.detected;
  if (!l.root) {
    throw unsupported(`A ${version} Document must contain <${MESSAGE_TYPES[message_type].root}>`);
  }
  const headerVersion = l.detected.business_application_header?.version;
  return {
    message_type,
    version,
    namespace,
    ...(variant ? { variant } : {}),
    ...(l.appHdr ? { business_application_header: parseAppHdr(l.appHdr, headerVersion ?? 'unknown') } : {}),
    ...HANDLERS[message_type].parse(l.root, version),
  };
}

// --- validation ---------------------------------------------------------------------

export interface ValidationIssue {
  line: number;
  column: number;
  path: string;
  message: string;
  kind: 'xsd' | 'business';
  /** Stable code: the business rule id (see rule-catalog.ts), or 'schema' for an XSD violation. */
  code: string;
  /** Business rule id, for kind 'business' (the same as code; kept for existing clients). */
  rule?: string;
  /** Where the rule comes from: the XSD, the ISO 20022 rule / definition / usage guideline, or "platform rule: <reason>". */
  source: string;
}

export interface ValidationResult {
  /** True when there are no errors; warnings do not make a message invalid. */
  valid: boolean;
  message_type: MessageType;
  version: string;
  namespace: string;
  variant?: string;
  /** Schemas the message was checked against. */
  schemas: { document: string; business_application_header?: string | null };
  checks: { xsd: boolean; business: boolean };
  notes: string[];
  errors: ValidationIssue[];
  /** Findings of rules real messages legitimately break: reported, not refused. */
  warnings: ValidationIssue[];
}

const MAX_REPORTED_ERRORS = 1000;

/** Source text for validating `el` on its own, with the same line numbers as the original. */
function sliceFor(l: Loaded, el: XEl, fromNs: string, toNs: string): string {
  const xml = l.parsed.xml;
  if (el === l.parsed.root && fromNs === toNs) return xml;
  const end = xml.lastIndexOf('>', el.end) + 1;
  let body = xml.slice(el.start, end);
  // Carry namespace declarations made on ancestors into the element's own start tag.
  const own = el.ns ?? {};
  const inherited = Object.entries(namespacesInScope(el)).filter(([p]) => !(p in own));
  if (inherited.length) {
    const nameEnd = 1 + (el.prefix ? el.prefix.length + 1 : 0) + el.name.length;
    const decls = inherited.map(([p, uri]) => ` ${p ? `xmlns:${p}` : 'xmlns'}="${uri.replace(/"/g, '&quot;')}"`).join('');
    body = body.slice(0, nameEnd) + decls + body.slice(nameEnd);
  }
  if (fromNs !== toNs) body = body.split(`"${fromNs}"`).join(`"${toNs}"`).split(`'${fromNs}'`).join(`'${toNs}'`);
  const { line, column } = lineColumn(l.parsed, el.start);
  return '\n'.repeat(line - 1) + ' '.repeat(column - 1) + body;
}

function xsdIssues(l: Loaded, el: XEl, schemaVersion: string, actualNs: string): ValidationIssue[] {
  const raw = validateAgainstXsd(sliceFor(l, el, actualNs, nsOfVersion(schemaVersion)), schemaVersion);
  if (!raw.length) return [];
  // libxml2 reports a line (rarely a column): find the element it names on that line.
  const byLine = new Map<number, XEl[]>();
  walk(el, (e) => {
    const { line } = lineColumn(l.parsed, e.start);
    const list = byLine.get(line);
    if (list) list.push(e);
    else byLine.set(line, [e]);
  });
  const lines = [...byLine.keys()].sort((a, b) => a - b);
  return raw.slice(0, MAX_REPORTED_ERRORS).map((issue) => {
    const named = /Element '(?:\{[^}]*\})?([^']+)'/.exec(issue.message)?.[1];
    let candidates = byLine.get(issue.line);
    if (!candidates) {
      const before = lines.filter((n) => n <= issue.line).pop();
      candidates = before !== undefined ? byLine.get(before) : [el];
    }
    const target = (named && candidates?.find((c) => c.name === named)) || candidates?.[0] || el;
    const pos = lineColumn(l.parsed, target.start);
    return {
      line: issue.line || pos.line,
      column: issue.column || (pos.line === issue.line || !issue.line ? pos.column : 0),
      path: pathOf(target),
      message: issue.message.replace(/\{urn:[^}]*\}/g, ''),
      kind: 'xsd' as const,
      code: 'schema',
      source: `ISO 20022 XSD ${schemaVersion}`,
    };
  });
}

function validateLoaded(l: Loaded): ValidationResult {
  const { message_type, version, namespace, variant } = l.detected;
  const notes: string[] = [];
  const errors: ValidationIssue[] = [];
  const warnings: ValidationIssue[] = [];
  const headerVersion = l.detected.business_application_header?.version ?? null;
  if (variant) {
    notes.push(
      `National variant "${variant}" has no schema here: validated against the base ISO schema ${version} ` +
        `(variant-specific restrictions not checked) and the business rules.`,
    );
  }
  if (l.appHdr) {
    if (headerVersion && availableVersions().has(headerVersion)) {
      errors.push(...xsdIssues(l, l.appHdr, headerVersion, nsOfVersion(headerVersion)));
    } else {
      const pos = lineColumn(l.parsed, l.appHdr.start);
      errors.push({
        ...pos,
        path: pathOf(l.appHdr),
        kind: 'business',
        code: 'header-version',
        rule: 'header-version',
        source: RULES['header-version'].source,
        message: `AppHdr namespace ${l.detected.business_application_header?.namespace ?? '(none)'} is not a supported head.001 version (${versionsOf(HEAD_TYPE).join(', ')})`,
      });
    }
  }
  errors.push(...xsdIssues(l, l.document, version, namespace));
  for (const issue of businessRules(l.document, l.root, message_type, version, l.appHdr)) {
    const pos = lineColumn(l.parsed, issue.el.start);
    (issue.level === 'error' ? errors : warnings).push({
      ...pos,
      path: issue.path ?? pathOf(issue.el),
      message: issue.message,
      kind: 'business',
      code: issue.rule,
      rule: issue.rule,
      source: issue.source,
    });
  }
  if (errors.length >= MAX_REPORTED_ERRORS) notes.push(`Only the first ${MAX_REPORTED_ERRORS} schema errors per part are reported.`);
  const byPosition = (a: ValidationIssue, b: ValidationIssue) => a.line - b.line || a.column - b.column;
  errors.sort(byPosition);
  warnings.sort(byPosition);
  return {
    valid: errors.length === 0,
    message_type,
    version,
    namespace,
    ...(variant ? { variant } : {}),
    schemas: { document: version, ...(l.appHdr ? { business_application_header: headerVersion } : {}) },
    checks: { xsd: true, business: true },
    notes,
    errors,
    warnings,
  };
}

export function validateMessage(xml: unknown): ValidationResult {
  return validateLoaded(load(xml));
}

// --- generation ---------------------------------------------------------------------

export type GenerateResult = Json & {
  xml: string;
  message_type: MessageType;
  version: string;
  business_application_header?: { version: string; business_message_id: string };
};

function resolveTypeAndVersion(input: Json): { type: MessageType; version: string } {
  const rawType = input.type ?? input.message_type;
  if (typeof rawType !== 'string' || !rawType) {
    throw new Iso20022Error('VALIDATION_ERROR', 'type is required (e.g. "pacs.008")', { pointer: '/type' });
  }
  // Accept a full version in `type` too ("pacs.008.001.09").
  const type = rawType.slice(0, 8);
  if (!isMessageType(type)) {
    throw new Iso20022Error('UNSUPPORTED_MESSAGE_TYPE', `Cannot generate ${rawType}; supported types: ${Object.keys(MESSAGE_TYPES).join(', ')}`, { pointer: '/type' });
  }
  const version = (typeof input.version === 'string' && input.version) || (rawType.length > 8 ? rawType : MESSAGE_TYPES[type].defaultVersion);
  if (!versionsOf(type).includes(version)) {
    throw new Iso20022Error('UNSUPPORTED_VERSION', `${version} is not available; ${type} versions: ${versionsOf(type).join(', ')}`, { pointer: input.version ? '/version' : '/type' });
  }
  return { type, version };
}

function mismatch(err: unknown): never {
  if (err instanceof SchemaMismatchError) {
    throw new Iso20022Error('FIELD_NOT_IN_SCHEMA', `The input needs ${err.elementPath}, which ${err.version} does not have`);
  }
  throw err;
}

export function generateMessage(input: unknown): GenerateResult {
  if (!input || typeof input !== 'object' || Array.isArray(input)) {
    throw new Iso20022Error('VALIDATION_ERROR', 'The body must be a JSON object', { pointer: '' });
  }
  const body = input as Json;
  const { type, version } = resolveTypeAndVersion(body);
  const hdr = appHdrInput(body.business_application_header);
  let xml: string;
  let built;
  let header: GenerateResult['business_application_header'];
  try {
    built = HANDLERS[type].build(body, version);
    const document = renderDocument(version, built.document);
    if (hdr) {
      const hv = hdr.version ?? DEFAULT_HEAD_VERSION;
      if (!versionsOf(HEAD_TYPE).includes(hv)) {
        throw new Iso20022Error('UNSUPPORTED_VERSION', `${hv} is not available; head.001 versions: ${versionsOf(HEAD_TYPE).join(', ')}`, { pointer: '/business_application_header/version' });
      }
      const hdrXml = buildAppHdr(hdr, built.header, version, built.summary.message_id);
      header = { version: hv, business_message_id: hdrXml.BizMsgIdr as string };
      xml = `<?xml version="1.0" encoding="UTF-8"?>\n<${ENVELOPE_ELEMENT}>\n${renderAppHdr(hv, hdrXml)}\n${document}\n</${ENVELOPE_ELEMENT}>\n`;
    } else {
      xml = `<?xml version="1.0" encoding="UTF-8"?>\n${document}\n`;
    }
  } catch (err) {
    mismatch(err);
  }
  // Never hand out a message that does not pass our own validation: the platform is its author, so a
  // warning (e.g. balances that do not add up) is a mistake in the input here, not a bank's convention.
  const check = validateLoaded(load(xml, { trusted: true }));
  const problems = [...check.errors, ...check.warnings];
  if (problems.length) {
    const [first, ...rest] = problems;
    const asIssue = (e: ValidationIssue) => ({
      detail: `${e.path}: ${e.message}`,
      meta: { kind: e.kind, rule: e.rule, code: e.code, source: e.source, path: e.path, line: e.line, column: e.column },
    });
    throw new Iso20022Error('GENERATED_MESSAGE_INVALID', `The ${version} message built from this input is invalid: ${first.path}: ${first.message}`, {
      issues: rest.slice(0, 50).map(asIssue),
    });
  }
  return {
    xml,
    message_type: type,
    version,
    ...built.summary,
    ...(header ? { business_application_header: header } : {}),
  };
}
