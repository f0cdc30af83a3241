/**
 * The official Berlin Group NextGenPSD2 XS2A OpenAPI document (1.3.12, read from
 * PSD2_OPENAPI_PATH, default ../shared/reference/psd2/ beside the repository; never copied in) as a
 * response validator: openapi-backend matches a request to the document's operation and validates
 * the response's status, JSON body and headers with Ajv against the operation's responses, every
 * $ref dereferenced. OpenAPI 3.0's own keywords are given to Ajv as JSON Schema (openApi30Keywords);
 * the document is loaded in openapi-backend's quick mode (its full mode first checks the document
 * against a schema of OpenAPI that rejects the official file's boolean exclusiveMinimum, which
 * OpenAPI 3.0 allows, and then dereferences nothing); validators compile per operation on first use.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import addFormats from 'ajv-formats';
import OpenAPIBackend, { type Operation } from 'openapi-backend';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../domain/platform/config';

export const PSD2_OPENAPI_PATH = process.env.PSD2_OPENAPI_PATH || path.resolve(REPO_ROOT, '../shared/reference/psd2/psd2-api_v1.3.12-2022-07-06.yaml');

/** What a light-my-request (app.inject) response offers. */
export interface InjectedResponse {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

interface HeaderObject {
  required?: boolean;
}
interface ResponseObject {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, unknown>;
}

const isAbsoluteUrl = (v: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
};

export interface BerlinGroupSpec {
  /**
   * The problems of one response against the operation the request matches (none: it conforms):
   * the status must be one the operation documents; a JSON body must validate against that
   * status's schema (a response without content must have no body); present headers must match
   * their schemas and the required ones must be there.
   */
  problems(method: string, url: string, res: InjectedResponse): { operationId: string | null; problems: string[] };
  /** The response header names the operation documents for a status (lower case). */
  headersOf(operationId: string, status: number): string[];
}

/**
 * OpenAPI 3.0 Schema Objects differ from the JSON Schema Ajv runs in exclusiveMinimum and
 * exclusiveMaximum: booleans beside minimum/maximum, where JSON Schema has the exclusive bound
 * itself (`nullable` Ajv knows). Rewrites them in place, everywhere in the document.
 */
export function openApi30Keywords(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(openApi30Keywords);
  if (!node || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof o[exclusive] !== 'boolean') continue;
    if (o[exclusive] === true && typeof o[bound] === 'number') {
      o[exclusive] = o[bound];
      delete o[bound];
    } else delete o[exclusive];
  }
  Object.values(o).forEach(openApi30Keywords);
}

/** Loads the document; `serverPath` is the server URL's path the platform serves it under. */
export async function loadBerlinGroupSpec(serverPath: string): Promise<BerlinGroupSpec> {
  const definition = parse(readFileSync(PSD2_OPENAPI_PATH, 'utf8'));
  openApi30Keywords(definition.components);
  const api = new OpenAPIBackend({
    definition,
    quick: true,
    strict: true,
    customizeAjv: (ajv) => {
      addFormats(ajv);
      // The document's Location header is `format: url`, which JSON Schema does not define.
      ajv.addFormat('url', { type: 'string', validate: isAbsoluteUrl });
      return ajv;
    },
  });
  await api.init();
  const responsesOf = (op: Operation) => op.responses as Record<string, ResponseObject>;

  return {
    problems(method, url, res) {
      const u = new URL(url, 'http://localhost');
      if (!u.pathname.startsWith(`${serverPath}/`)) return { operationId: null, problems: [`${u.pathname} is not under the server URL ${serverPath}`] };
      const op = api.router.matchOperation({ method: method.toLowerCase(), path: u.pathname.slice(serverPath.length), headers: {} });
      if (!op) return { operationId: null, problems: [`${method} ${u.pathname}: no operation of the document`] };
      const problems: string[] = [];
      const documented = responsesOf(op)[String(res.statusCode)];
      if (!documented) return { operationId: op.operationId!, problems: [`status ${res.statusCode} is not a response of ${op.operationId}`] };
      if (documented.content?.['application/json']) {
        const type = String(res.headers['content-type'] ?? '');
        if (!type.startsWith('application/json')) problems.push(`content-type ${type}, not application/json`);
        let body: unknown;
        try {
          body = JSON.parse(res.body);
        } catch {
          problems.push('the body is not JSON');
        }
        const v = api.validator.validateResponse(body, op, res.statusCode);
        for (const e of v.errors ?? []) problems.push(`body${e.instancePath || ''} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
      } else if (!documented.content && res.body !== '') {
        problems.push(`a body where ${op.operationId} ${res.statusCode} has none`);
      }
      const h = api.validator.validateResponseHeaders(res.headers, op, { statusCode: res.statusCode, setMatchType: 'any' as never });
      for (const e of h.errors ?? []) problems.push(`header ${e.instancePath} ${e.message}`);
      for (const [name, header] of Object.entries(documented.headers ?? {})) {
        if (header.required && res.headers[name.toLowerCase()] === undefined) problems.push(`required header ${name} missing`);
      }
      return { operationId: op.operationId!, problems };
    },
    headersOf(operationId, status) {
      const op = api.router.getOperation(operationId);
      return Object.keys((op && responsesOf(op)[String(status)]?.headers) ?? {}).map((n) => n.toLowerCase());
    },
  };
}
