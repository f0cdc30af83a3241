/**
 * What a caller may ask of SDK generation (spec: POST /partner/sdk/generate, both body forms) and
 * its one normalized shape. The checks here are the domain's own, whatever the transport: every
 * refusal is a DomainError with a JSON pointer into the body, so a hostile package name, module
 * list or language never reaches a generator, a file name or a shell (there is none: generators
 * run with execFile and argument arrays, domain/partner/sdk/generate.ts).
 *
 *   form 'single':   { language, branding {name, color}, modules }
 *   form 'multiple': { languages, api_version, include_modules, options {include_types, include_examples, include_tests} }
 *
 * Either form may also carry package_name (the npm and PyPI name; derived from branding.name when
 * absent) and branding; api_version defaults to v2 (Versioning rule 5).
 */
import { DomainError } from '../../platform/errors';
import { MODULES, type Module } from '../modules';

export const SDK_LANGUAGES = ['python', 'typescript'] as const;
export type SdkLanguage = (typeof SDK_LANGUAGES)[number];

/** Versions of the API an SDK can be generated for (paths /api/v1/…, /api/v2/…). */
export const SDK_API_VERSIONS = ['v1', 'v2'] as const;
export type SdkApiVersion = (typeof SDK_API_VERSIONS)[number];

export interface SdkOptions {
  /** TypeScript: declaration files (.d.ts); Python: the py.typed marker. */
  include_types: boolean;
  /** A quick-start example in the README (and examples/quickstart.mjs in the npm package). */
  include_examples: boolean;
  /** A smoke test shipped with the package (node:test / unittest) that imports every operation. */
  include_tests: boolean;
}

export const DEFAULT_SDK_OPTIONS: SdkOptions = { include_types: true, include_examples: true, include_tests: false };

export interface SdkBranding {
  name: string;
  /** #rrggbb, lower case. */
  color: string;
}

/** The normalized request, as stored in sdk_generations.request and hashed into cache keys. */
export interface SdkRequest {
  languages: SdkLanguage[];
  api_version: SdkApiVersion;
  /** The requested modules (sorted, distinct); every module when the request named none (an empty list: only the platform's own routes). */
  modules: Module[];
  branding: SdkBranding | null;
  /** npm package and PyPI distribution name; the Python import name is it with _ for -. */
  package_name: string;
  options: SdkOptions;
}

const FIELDS = new Set(['language', 'modules', 'languages', 'include_modules', 'branding', 'api_version', 'options', 'package_name']);
const MAX_LANGUAGES = 10;
const MAX_MODULES = 50;

/**
 * A name valid on npm (unscoped) and on PyPI alike, and turned into a Python identifier by
 * replacing - with _: lower-case letters, digits and single hyphens, starting with a letter.
 */
export const PACKAGE_NAME_PATTERN = /^[a-z](?:[a-z0-9]|-(?=[a-z0-9])){1,49}$/;
const COLOR_PATTERN = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
// Control characters, and line and paragraph separators: a brand name is one line of text.
const UNPRINTABLE = /[\p{Cc}\p{Zl}\p{Zp}]/u;
const PYTHON_KEYWORDS = new Set(
  'false none true and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(' '),
);

const invalid = (pointer: string, message: string) => new DomainError('VALIDATION_ERROR', message, pointer);
const escapeKey = (k: string) => k.replaceAll('~', '~0').replaceAll('/', '~1');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function stringArray(value: unknown, pointer: string, max: number): string[] {
  if (!Array.isArray(value)) throw invalid(pointer, `${pointer.slice(1)} must be an array of strings`);
  if (value.length > max) throw invalid(pointer, `${pointer.slice(1)} may list at most ${max} entries`);
  return value.map((v, i) => {
    if (typeof v !== 'string') throw invalid(`${pointer}/${i}`, `${pointer.slice(1)}[${i}] must be a string`);
    return v;
  });
}

function language(value: string, pointer: string): SdkLanguage {
  const l = value.trim().toLowerCase();
  if ((SDK_LANGUAGES as readonly string[]).includes(l)) return l as SdkLanguage;
  const shown = value.length > 40 || UNPRINTABLE.test(value) ? 'this language' : `"${value}"`;
  throw new DomainError('UNSUPPORTED_SDK_LANGUAGE', `SDKs cannot be generated for ${shown}; supported languages: ${SDK_LANGUAGES.join(', ')}`, pointer, {
    supported: [...SDK_LANGUAGES],
  });
}

function modules(value: unknown, pointer: string): Module[] {
  const out = new Set<Module>();
  stringArray(value, pointer, MAX_MODULES).forEach((m, i) => {
    const name = m.trim().toLowerCase();
    if (!(MODULES as readonly string[]).includes(name)) {
      const shown = /^[a-z0-9_-]{1,40}$/.test(name) ? `"${name}"` : 'this entry';
      throw new DomainError('UNKNOWN_SDK_MODULE', `Unknown module ${shown}; modules: ${MODULES.join(', ')}`, `${pointer}/${i}`, { modules: [...MODULES] });
    }
    out.add(name as Module);
  });
  return [...out].sort();
}

function branding(value: unknown): SdkBranding | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw invalid('/branding', 'branding must be an object with name and color');
  for (const k of Object.keys(value)) if (k !== 'name' && k !== 'color') throw invalid(`/branding/${escapeKey(k)}`, `branding.${k} is not an accepted field`);
  const { name, color } = value;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 100 || UNPRINTABLE.test(name)) {
    throw invalid('/branding/name', 'branding.name must be one line of 1 to 100 printable characters');
  }
  if (typeof color !== 'string' || !COLOR_PATTERN.test(color)) throw invalid('/branding/color', 'branding.color must be a hex colour such as #0a84ff');
  const hex = color.slice(1).toLowerCase();
  return { name: name.trim(), color: `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}` };
}

/** The brand name as a package name: ASCII letters and digits joined by hyphens, plus -sdk. */
export function packageNameFor(brand: SdkBranding | null): string {
  const slug = (brand?.name ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${slug || 'banking-platform'}-sdk`;
}

function packageName(value: unknown, brand: SdkBranding | null): string {
  if (value === undefined) return packageNameFor(brand);
  if (typeof value !== 'string' || !PACKAGE_NAME_PATTERN.test(value)) {
    throw invalid('/package_name', 'package_name must be 2 to 50 lower-case letters, digits and single hyphens, starting with a letter (valid on npm and PyPI)');
  }
  if (PYTHON_KEYWORDS.has(value)) throw invalid('/package_name', `package_name "${value}" is a Python keyword and cannot be imported`);
  return value;
}

function options(value: unknown): SdkOptions {
  if (value === undefined || value === null) return { ...DEFAULT_SDK_OPTIONS };
  if (!isObject(value)) throw invalid('/options', 'options must be an object of booleans');
  const out = { ...DEFAULT_SDK_OPTIONS };
  for (const [k, v] of Object.entries(value)) {
    if (!(k in DEFAULT_SDK_OPTIONS)) throw invalid(`/options/${escapeKey(k)}`, `options.${k} is not an accepted option (include_types, include_examples, include_tests)`);
    if (typeof v !== 'boolean') throw invalid(`/options/${escapeKey(k)}`, `options.${k} must be a boolean`);
    out[k as keyof SdkOptions] = v;
  }
  return out;
}

/** Checks a request body in either form and returns the normalized request; refusals name the field. */
export function normalizeSdkRequest(body: unknown): SdkRequest {
  if (!isObject(body)) throw invalid('/', 'The body must be a JSON object');
  for (const k of Object.keys(body)) if (!FIELDS.has(k)) throw invalid(`/${escapeKey(k)}`, `${k} is not an accepted field`);
  if (body.language !== undefined && body.languages !== undefined) throw invalid('/languages', 'Give language or languages, not both');
  if (body.modules !== undefined && body.include_modules !== undefined) throw invalid('/include_modules', 'Give modules or include_modules, not both');

  let languages: SdkLanguage[];
  if (body.languages !== undefined) {
    const list = stringArray(body.languages, '/languages', MAX_LANGUAGES);
    if (list.length === 0) throw invalid('/languages', 'languages must name at least one language');
    languages = list.map((l, i) => language(l, `/languages/${i}`));
  } else if (typeof body.language === 'string') {
    languages = [language(body.language, '/language')];
  } else {
    throw invalid('/language', body.language === undefined ? 'language (or languages) is required' : 'language must be a string');
  }

  let apiVersion: SdkApiVersion = 'v2';
  if (body.api_version !== undefined) {
    const v = typeof body.api_version === 'string' ? body.api_version.trim().toLowerCase() : '';
    if (!(SDK_API_VERSIONS as readonly string[]).includes(v)) {
      throw new DomainError('UNSUPPORTED_API_VERSION', `api_version must be one of: ${SDK_API_VERSIONS.join(', ')}`, '/api_version');
    }
    apiVersion = v as SdkApiVersion;
  }

  const requested =
    body.include_modules !== undefined ? modules(body.include_modules, '/include_modules') : body.modules !== undefined ? modules(body.modules, '/modules') : [...MODULES].sort();
  const brand = branding(body.branding);
  return {
    languages: [...new Set(languages)].sort(),
    api_version: apiVersion,
    modules: requested,
    branding: brand,
    package_name: packageName(body.package_name, brand),
    options: options(body.options),
  };
}

/** The Python import name of a package name (acme-bank-sdk -> acme_bank_sdk). */
export const pythonImportName = (packageName: string) => packageName.replaceAll('-', '_');

/**
 * The body of POST /partner/sdk/generate as JSON Schema, for the route's OpenAPI document. Loose on
 * purpose where the domain answers with its own codes (an unknown language is 422
 * UNSUPPORTED_SDK_LANGUAGE listing the supported ones, an unknown module UNKNOWN_SDK_MODULE).
 */
export const SDK_GENERATE_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description:
    'Either form: {language, branding, modules} or {languages, api_version, include_modules, options}; package_name (npm and PyPI name) is optional in both, derived from branding.name otherwise.',
  properties: {
    language: { type: 'string', maxLength: 100, description: `One of: ${SDK_LANGUAGES.join(', ')}` },
    languages: { type: 'array', maxItems: MAX_LANGUAGES, items: { type: 'string', maxLength: 100 }, description: `Each one of: ${SDK_LANGUAGES.join(', ')}` },
    api_version: { type: 'string', maxLength: 10, default: 'v2', description: `One of: ${SDK_API_VERSIONS.join(', ')}` },
    modules: { type: 'array', maxItems: MAX_MODULES, items: { type: 'string', maxLength: 100 }, description: `Any of: ${MODULES.join(', ')} (default all)` },
    include_modules: { type: 'array', maxItems: MAX_MODULES, items: { type: 'string', maxLength: 100 }, description: `Any of: ${MODULES.join(', ')} (default all)` },
    branding: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'color'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, color: { type: 'string', maxLength: 7, description: 'Hex colour, e.g. #0a84ff' } },
    },
    package_name: { type: 'string', maxLength: 100, description: 'Lower-case letters, digits and hyphens, starting with a letter' },
    options: {
      type: 'object',
      additionalProperties: false,
      properties: { include_types: { type: 'boolean' }, include_examples: { type: 'boolean' }, include_tests: { type: 'boolean' } },
    },
  },
} as const;
