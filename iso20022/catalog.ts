import fs from 'node:fs';
import { getConfig } from './config';

/** The message families this module understands, with the child element of `Document` for each. */
export const MESSAGE_TYPES = {
  'pacs.008': { root: 'FIToFICstmrCdtTrf', title: 'FI to FI Customer Credit Transfer', defaultVersion: 'pacs.008.001.08' },
  'pacs.002': { root: 'FIToFIPmtStsRpt', title: 'FI to FI Payment Status Report', defaultVersion: 'pacs.002.001.10' },
  'pain.001': { root: 'CstmrCdtTrfInitn', title: 'Customer Credit Transfer Initiation', defaultVersion: 'pain.001.001.09' },
  'pain.002': { root: 'CstmrPmtStsRpt', title: 'Customer Payment Status Report', defaultVersion: 'pain.002.001.10' },
  'camt.053': { root: 'BkToCstmrStmt', title: 'Bank to Customer Statement', defaultVersion: 'camt.053.001.08' },
  'camt.054': { root: 'BkToCstmrDbtCdtNtfctn', title: 'Bank to Customer Debit Credit Notification', defaultVersion: 'camt.054.001.08' },
  'camt.056': { root: 'FIToFIPmtCxlReq', title: 'FI to FI Payment Cancellation Request', defaultVersion: 'camt.056.001.08' },
  'admi.002': { root: 'admi.002.001.01', title: 'Message Reject', defaultVersion: 'admi.002.001.01' },
} as const;

export type MessageType = keyof typeof MESSAGE_TYPES;
export const HEAD_TYPE = 'head.001';
export const DEFAULT_HEAD_VERSION = 'head.001.001.02';

export const ISO_NS_PREFIX = 'urn:iso:std:iso:20022:tech:xsd:';

export function isMessageType(t: string): t is MessageType {
  return Object.prototype.hasOwnProperty.call(MESSAGE_TYPES, t);
}

export function namespaceOf(version: string): string {
  return ISO_NS_PREFIX + version;
}

/**
 * Splits an ISO 20022 namespace into type, base version and national variant suffix.
 * `urn:iso:std:iso:20022:tech:xsd:pain.001.001.03.ch.02` → pain.001 / pain.001.001.03 / ch.02.
 */
export function splitNamespace(ns: string): { type: string; version: string; variant?: string } | null {
  // SIX (Swiss) schemas also use http://www.six-interbank-clearing.com/de/pain.001.001.03.ch.02.xsd.
  const m =
    /^urn:iso:std:iso:20022:tech:xsd:([a-z]{4}\.\d{3})\.(\d{3}\.\d{2})(?:\.(.+))?$/.exec(ns) ??
    /^https?:\/\/www\.six-interbank-clearing\.com\/[a-z]{2}\/([a-z]{4}\.\d{3})\.(\d{3}\.\d{2})\.(ch\.\d{2})\.xsd$/.exec(ns);
  if (!m) return null;
  return { type: m[1], version: `${m[1]}.${m[2]}`, variant: m[3] };
}

let versionCache: { dir: string; versions: Set<string> } | null = null;

/** Versions that have a schema file in the configured XSD directory. */
export function availableVersions(): Set<string> {
  const dir = getConfig().xsdDir;
  if (versionCache?.dir === dir) return versionCache.versions;
  let files: string[];
  try {
    files = fs.readdirSync(dir);
  } catch (err) {
    // A misplaced schema directory is a deployment error: say so instead of answering that every
    // message version is unsupported.
    throw new Error(`ISO 20022 schemas not found in ${dir} (${(err as NodeJS.ErrnoException).code}): set ISO20022_XSD_DIR`);
  }
  const versions = new Set(
    files.filter((f) => /^[a-z]{4}\.\d{3}\.\d{3}\.\d{2}\.xsd$/.test(f)).map((f) => f.slice(0, -4)),
  );
  versionCache = { dir, versions };
  return versions;
}

export function versionsOf(type: string): string[] {
  return [...availableVersions()].filter((v) => v.startsWith(type + '.')).sort();
}

export interface SupportedTypes {
  message_types: Array<{
    type: MessageType;
    title: string;
    root_element: string;
    default_version: string;
    parse: string[];
    generate: string[];
    validate: string[];
  }>;
  business_application_header: { parse: string[]; generate: string[]; validate: string[]; default_version: string };
  national_variants: string;
}

export function supportedTypes(): SupportedTypes {
  return {
    message_types: (Object.keys(MESSAGE_TYPES) as MessageType[]).map((type) => {
      const versions = versionsOf(type);
      return {
        type,
        title: MESSAGE_TYPES[type].title,
        root_element: MESSAGE_TYPES[type].root,
        default_version: MESSAGE_TYPES[type].defaultVersion,
        parse: versions,
        generate: versions,
        validate: versions,
      };
    }),
    business_application_header: {
      parse: versionsOf(HEAD_TYPE),
      generate: versionsOf(HEAD_TYPE),
      validate: versionsOf(HEAD_TYPE),
      default_version: DEFAULT_HEAD_VERSION,
    },
    national_variants:
      'Namespaces extending a supported version (e.g. urn:iso:std:iso:20022:tech:xsd:pain.001.001.03.ch.02) are parsed structurally and validated against the base ISO schema plus business rules; variant-specific restrictions are not checked.',
  };
}
