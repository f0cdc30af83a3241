/**
 * Schema validation of a report file against ESMA's schemas in MIFID_XSD_DIR (never copied into
 * the repository: they carry a SWIFT MyStandards notice, see ../shared/reference/SOURCES.md).
 *
 * head.003's Pyld is a strict wildcard, so the BizData schema alone cannot validate the payload.
 * The envelope's shape is checked here (BizData → Hdr/AppHdr, Pyld/Document in their namespaces),
 * then the AppHdr is validated against head.001 and the Document against auth.016, each with
 * libxmljs2 under the safe parse options (no DTDs, no entities, no network). Issue lines are the
 * file's. With a schema file missing nothing is claimed: validated false and the reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import libxml from 'libxmljs2';
import { LIBXML_SAFE_OPTIONS, validateAgainstXsdFile } from '../../../iso20022/xsd';
import { NS } from './auth016';

export const SCHEMA_FILES = {
  bizData: 'head.003.001.01.xsd',
  appHdr: 'head.001.001.01_ESMAUG_1.0.0.xsd',
  document: 'auth.016.001.01_ESMAUG_Reporting_1.1.0.xsd',
} as const;

export interface ValidationIssue {
  code: 'XSD_SCHEMA_UNAVAILABLE' | 'XML_MALFORMED' | 'ENVELOPE_INVALID' | 'XSD_INVALID';
  message: string;
  part?: 'BizData' | 'AppHdr' | 'Document';
  line?: number;
  column?: number;
}

export interface XsdOutcome {
  /** True only when both parts were validated against the schemas and passed. */
  validated: boolean;
  /** Why not, when not. */
  reason: string | null;
  issues: ValidationIssue[];
}

const elements = (el: libxml.Element) => el.childNodes().filter((n): n is libxml.Element => n.type() === 'element');
const is = (el: libxml.Element | undefined, name: string, ns: string) => !!el && el.name() === name && el.namespace()?.href() === ns;

export function missingSchemaFiles(dir: string): string[] {
  return Object.values(SCHEMA_FILES).filter((f) => !fs.existsSync(path.join(dir, f)));
}

export function validateReportXml(xml: string, dir: string): XsdOutcome {
  const missing = missingSchemaFiles(dir);
  if (missing.length > 0) {
    const reason = `Not validated: MIFID_XSD_DIR (${dir}) lacks ${missing.join(', ')}`;
    return { validated: false, reason, issues: [{ code: 'XSD_SCHEMA_UNAVAILABLE', message: reason }] };
  }
  let doc: libxml.Document;
  try {
    if (/<!\s*(DOCTYPE|ENTITY)/i.test(xml)) throw Object.assign(new Error('Document type and entity declarations are not accepted'), { line: 0, column: 0 });
    doc = libxml.parseXml(xml, LIBXML_SAFE_OPTIONS);
  } catch (err) {
    const e = err as { message?: string; line?: number; column?: number };
    return fail([{ code: 'XML_MALFORMED', message: (e.message ?? 'Malformed XML').trim(), line: e.line ?? 0, column: e.column ?? 0 }]);
  }
  const root = doc.root() ?? undefined;
  const parts = root ? elements(root) : [];
  const [hdr, pyld] = parts;
  const appHdr = hdr ? elements(hdr) : [];
  const payload = pyld ? elements(pyld) : [];
  if (!is(root, 'BizData', NS.bizData) || parts.length !== 2 || !is(hdr, 'Hdr', NS.bizData) || !is(pyld, 'Pyld', NS.bizData) || appHdr.length !== 1 || payload.length !== 1) {
    return fail([{ code: 'ENVELOPE_INVALID', part: 'BizData', message: `Expected {${NS.bizData}}BizData holding Hdr (one AppHdr) and Pyld (one Document)` }]);
  }
  const issues: ValidationIssue[] = [];
  if (!is(appHdr[0], 'AppHdr', NS.appHdr)) issues.push({ code: 'ENVELOPE_INVALID', part: 'AppHdr', message: `Hdr must hold {${NS.appHdr}}AppHdr`, line: appHdr[0].line() });
  if (!is(payload[0], 'Document', NS.auth016)) issues.push({ code: 'ENVELOPE_INVALID', part: 'Document', message: `Pyld must hold {${NS.auth016}}Document`, line: payload[0].line() });
  if (issues.length) return fail(issues);
  for (const [part, el, file] of [
    ['AppHdr', appHdr[0], SCHEMA_FILES.appHdr],
    ['Document', payload[0], SCHEMA_FILES.document],
  ] as const) {
    // The element on its own (it declares its namespace itself), validated against its schema; lines mapped back.
    for (const i of validateAgainstXsdFile(el.toString(), path.join(dir, file))) {
      issues.push({ code: 'XSD_INVALID', part, message: i.message, line: i.line > 0 ? el.line() + i.line - 1 : 0, column: i.column });
    }
  }
  return issues.length ? fail(issues) : { validated: true, reason: null, issues: [] };
}

function fail(issues: ValidationIssue[]): XsdOutcome {
  const first = issues[0];
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return { validated: false, reason: `Failed schema validation: ${first.part ? `${first.part}: ` : ''}${first.message}${more}`, issues };
}
