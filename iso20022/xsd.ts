import fs from 'node:fs';
import path from 'node:path';
import libxml from 'libxmljs2';
import { XMLParser } from 'fast-xml-parser';
import { getConfig } from './config';

/**
 * Options for every libxmljs2 parse: no entity substitution, no DTD loading or
 * validation, no network. `big_lines` keeps line numbers right past 65535.
 */
export const LIBXML_SAFE_OPTIONS = {
  noent: false,
  dtdload: false,
  dtdvalid: false,
  dtdattr: false,
  doctype: false,
  nonet: true,
  xinclude: false,
  huge: false,
  big_lines: true,
  recover: false,
} as const;

function xsdPath(version: string): string {
  return path.join(getConfig().xsdDir, `${version}.xsd`);
}

export function hasSchema(version: string): boolean {
  return fs.existsSync(xsdPath(version));
}

const schemaDocs = new Map<string, libxml.Document>();

/**
 * The parsed schema document for a version, loaded once per process.
 * libxmljs2 compiles the schema inside each `validate()` call and exposes no
 * compiled-schema handle, so the parsed XSD document is what we can cache.
 */
export function schemaDocument(version: string): libxml.Document {
  const key = xsdPath(version);
  let doc = schemaDocs.get(key);
  if (!doc) {
    doc = libxml.parseXml(fs.readFileSync(key, 'utf8'), LIBXML_SAFE_OPTIONS);
    schemaDocs.set(key, doc);
  }
  return doc;
}

export interface XsdIssue {
  line: number;
  column: number;
  message: string;
}

/** Validates an XML string (already safety-checked) against the schema of `version`. */
export function validateAgainstXsd(xml: string, version: string): XsdIssue[] {
  return validateWith(schemaDocument(version), xml);
}

/**
 * Validates an XML string against the schema file at `file` (an absolute path, e.g. a schema kept
 * outside ISO20022_XSD_DIR such as MIFID_XSD_DIR's), parsed with the same safe options and cached
 * per path. A missing file throws (ENOENT): check with fs.existsSync first.
 */
export function validateAgainstXsdFile(xml: string, file: string): XsdIssue[] {
  let schema = schemaDocs.get(file);
  if (!schema) {
    schema = libxml.parseXml(fs.readFileSync(file, 'utf8'), LIBXML_SAFE_OPTIONS);
    schemaDocs.set(file, schema);
  }
  return validateWith(schema, xml);
}

function validateWith(schema: libxml.Document, xml: string): XsdIssue[] {
  let doc: libxml.Document;
  try {
    doc = libxml.parseXml(xml, LIBXML_SAFE_OPTIONS);
  } catch (err) {
    const e = err as { message?: string; line?: number; column?: number };
    return [{ line: e.line ?? 0, column: e.column ?? 0, message: (e.message ?? 'Malformed XML').trim() }];
  }
  if (doc.validate(schema)) return [];
  return doc.validationErrors.map((e) => ({
    line: e.line ?? 0,
    column: e.column ?? 0,
    message: String(e.message).trim(),
  }));
}

// ---------------------------------------------------------------------------
// Schema model: element order and types per complex type, used by the XML
// builder so that generated elements always follow the schema's sequence.

export interface ChildDecl {
  name: string;
  type: string;
  min: number;
  max: number;
}

export interface TypeDecl {
  kind: 'sequence' | 'choice' | 'simpleContent' | 'empty';
  children: ChildDecl[];
  byName: Map<string, ChildDecl>;
  attributes: string[];
}

export interface SchemaModel {
  version: string;
  rootType: string;
  complex: Map<string, TypeDecl>;
}

const models = new Map<string, SchemaModel>();

const XSD_ARRAYS = new Set(['xs:element', 'xs:complexType', 'xs:simpleType', 'xs:attribute']);

export function schemaModel(version: string): SchemaModel {
  const key = xsdPath(version);
  const cached = models.get(key);
  if (cached) return cached;
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    isArray: (name) => XSD_ARRAYS.has(name),
  });
  const tree = parser.parse(fs.readFileSync(key, 'utf8')) as Record<string, any>;
  const schema = tree['xs:schema'];
  const complex = new Map<string, TypeDecl>();
  for (const ct of schema['xs:complexType'] ?? []) {
    const decl: TypeDecl = { kind: 'empty', children: [], byName: new Map(), attributes: [] };
    let group: [string, any] | null = ct['xs:sequence'] ? ['sequence', ct['xs:sequence']] : ct['xs:choice'] ? ['choice', ct['xs:choice']] : null;
    // 2009-generation schemas wrap choices in a sequence holding only that choice.
    if (group?.[0] === 'sequence' && !group[1]['xs:element'] && group[1]['xs:choice']) group = ['choice', group[1]['xs:choice']];
    if (group) {
      decl.kind = group[0] as 'sequence' | 'choice';
      for (const el of group[1]['xs:element'] ?? []) {
        const child: ChildDecl = {
          name: el.name,
          type: el.type,
          min: el.minOccurs === undefined ? 1 : Number(el.minOccurs),
          max: el.maxOccurs === undefined ? 1 : el.maxOccurs === 'unbounded' ? Infinity : Number(el.maxOccurs),
        };
        decl.children.push(child);
        decl.byName.set(child.name, child);
      }
    } else if (ct['xs:simpleContent']) {
      decl.kind = 'simpleContent';
      const ext = ct['xs:simpleContent']['xs:extension'];
      decl.attributes = (ext?.['xs:attribute'] ?? []).map((a: { name: string }) => a.name);
    }
    complex.set(ct.name, decl);
  }
  const root = (schema['xs:element'] as Array<{ name: string; type: string }>).find((e) => e.name === 'Document' || e.name === 'AppHdr');
  if (!root) throw new Error(`Schema ${version} has no Document/AppHdr element`);
  const model: SchemaModel = { version, rootType: root.type, complex };
  models.set(key, model);
  return model;
}

const elementNames = new Map<string, Set<string>>();

/** Whether any element of that name exists in the version's schema (e.g. UETR appeared in 2019 versions). */
export function schemaHasElement(version: string, name: string): boolean {
  let names = elementNames.get(version);
  if (!names) {
    names = new Set();
    for (const t of schemaModel(version).complex.values()) for (const c of t.children) names.add(c.name);
    elementNames.set(version, names);
  }
  return names.has(name);
}
