import { expect } from 'vitest';
import type { TestApp } from '../helpers/app';

export interface GqlResponse {
  status: number;
  data: any;
  errors: Array<{ message: string; path?: string[]; extensions: { code: string; status: number; pointer?: string } }> | undefined;
  headers: Record<string, unknown>;
}

/** One GraphQL operation over HTTP (POST /api/graphql), as the caller of `headers` (default: the test user). */
export async function gql(t: TestApp, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = t.headers): Promise<GqlResponse> {
  const r = await t.app.inject({ method: 'POST', url: '/api/graphql', headers, payload: { query, variables } });
  const body = r.json();
  return { status: r.statusCode, data: body.data, errors: body.errors, headers: r.headers };
}

/** The operation succeeded without errors; returns its data. */
export async function gqlOk(t: TestApp, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<any> {
  const r = await gql(t, query, variables, headers);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  expect(r.status).toBe(200);
  return r.data;
}

/** The operation failed with one error carrying the REST code (and status) in its extensions. */
export async function gqlRefused(t: TestApp, query: string, code: string, status: number, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<GqlResponse> {
  const r = await gql(t, query, variables, headers);
  expect(r.errors?.[0]?.extensions, JSON.stringify(r.errors ?? r.data)).toMatchObject({ code, status });
  return r;
}
