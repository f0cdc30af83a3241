/**
 * Depth and cost limits (docs/graphql.md "Limits"), checked before execution of every operation,
 * over HTTP and over WebSocket. Introspection (`__schema`, `__type` and everything under them) is
 * free and unbounded in depth, so GraphiQL and code generators keep working.
 *
 * - depth: the longest chain of nested selections, fragments expanded: at most MAX_DEPTH;
 * - cost (graphql-query-complexity): each field 1; a list field's selection counts once per item it
 *   may return (its perPage argument, default 20): at most MAX_COST. A page of 50 transactions with
 *   their account and asset costs about 50 × 20.
 */
import { Kind, visit, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import { gqlError } from './errors';
import { nullBytes } from '../plugins/validation';

export const MAX_DEPTH = 10;
export const MAX_COST = 10_000;

const isIntrospection = (name: string) => name === '__schema' || name === '__type';

function depthOf(set: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>, seen: Set<string>): number {
  if (!set) return 0;
  let max = 0;
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) {
      const f = s as FieldNode;
      if (isIntrospection(f.name.value) || f.name.value === '__typename') continue;
      max = Math.max(max, 1 + depthOf(f.selectionSet, fragments, seen));
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      max = Math.max(max, depthOf(s.selectionSet, fragments, seen));
    } else if (s.kind === Kind.FRAGMENT_SPREAD) {
      const name = s.name.value;
      const frag = fragments.get(name);
      if (!frag || seen.has(name)) continue; // cycles are a validation error already
      seen.add(name);
      max = Math.max(max, depthOf(frag.selectionSet, fragments, seen));
      seen.delete(name);
    }
  }
  return max;
}

export function queryDepth(document: DocumentNode, operationName?: string | null): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  let max = 0;
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    if (operationName && d.name?.value !== operationName) continue;
    max = Math.max(max, depthOf(d.selectionSet, fragments, new Set()));
  }
  return max;
}

// Introspection types and their fields cost nothing.
const introspectionFree: ComplexityEstimator = ({ type, field }) => (type.name.startsWith('__') || isIntrospection(field.name) ? 0 : undefined);

// A paginated list (perPage) or a plain list with a limit (first/limit) multiplies its selection.
const listEstimator: ComplexityEstimator = ({ args, childComplexity }) => {
  const n = args.perPage ?? args.first ?? args.limit;
  return typeof n === 'number' && n > 0 ? 1 + childComplexity * n : undefined;
};

export function queryCost(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | undefined, operationName?: string | null): number {
  return getComplexity({
    schema,
    query: document,
    variables: variables ?? {},
    operationName: operationName ?? undefined,
    estimators: [introspectionFree, listEstimator, simpleEstimator({ defaultComplexity: 1 })],
  });
}

// mercurius hands the same parsed document to every request with the same text, so a verdict is
// kept per document and (operation, variables): the walk runs once per distinct request shape.
const verdicts = new WeakMap<DocumentNode, Map<string, { depth: number; cost: number }>>();
const MAX_VERDICTS_PER_DOCUMENT = 256;

function measure(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | undefined, operationName?: string | null) {
  let byArgs = verdicts.get(document);
  if (!byArgs) verdicts.set(document, (byArgs = new Map()));
  const key = `${operationName ?? ''}\u0000${variables ? JSON.stringify(variables) : ''}`;
  let v = byArgs.get(key);
  if (!v) {
    v = { depth: queryDepth(document, operationName), cost: queryCost(schema, document, variables, operationName) };
    if (byArgs.size >= MAX_VERDICTS_PER_DOCUMENT) byArgs.clear();
    byArgs.set(key, v);
  }
  return v;
}

/** Throws QUERY_TOO_DEEP or QUERY_TOO_COMPLEX (400) for an operation over the limits. */
export function checkLimits(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | undefined, operationName?: string | null): void {
  const { depth, cost } = measure(schema, document, variables, operationName);
  if (depth > MAX_DEPTH) throw gqlError('QUERY_TOO_DEEP', `The query is ${depth} levels deep; at most ${MAX_DEPTH} are allowed`);
  if (cost > MAX_COST) throw gqlError('QUERY_TOO_COMPLEX', `The query costs ${cost}; at most ${MAX_COST} is allowed (each field 1, a list's selection once per item of perPage)`);
}

/** What a document's text alone decides, computed once per parsed document (mercurius reuses it). */
interface DocumentFacts {
  literalNul: boolean;
  mutations: Map<string, number>;
}
const facts = new WeakMap<DocumentNode, DocumentFacts>();

function factsOf(document: DocumentNode): DocumentFacts {
  let f = facts.get(document);
  if (!f) {
    let literalNul = false;
    visit(document, {
      StringValue(node) {
        if (node.value.includes('\u0000')) literalNul = true;
      },
    });
    f = { literalNul, mutations: new Map() };
    facts.set(document, f);
  }
  return f;
}

function countMutations(document: DocumentNode, operationName?: string | null): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const ops = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION && (!operationName || d.name?.value === operationName));
  const op = ops.length === 1 ? ops[0] : null;
  if (!op || op.kind !== Kind.OPERATION_DEFINITION || op.operation !== 'mutation') return 0;
  const count = (set: SelectionSetNode, seen: Set<string>): number => {
    let n = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) n += s.name.value === '__typename' ? 0 : 1;
      else if (s.kind === Kind.INLINE_FRAGMENT) n += count(s.selectionSet, seen);
      else {
        const frag = fragments.get(s.name.value);
        if (!frag || seen.has(s.name.value)) continue;
        n += count(frag.selectionSet, new Set([...seen, s.name.value]));
      }
    }
    return n;
  };
  return count(op.selectionSet, new Set());
}

/**
 * How many root fields the executed operation runs when it is a mutation (aliases and fragments
 * expanded): each counts against the caller's GraphQL rate limit as one operation, so sixty aliased
 * `deposit`s in one document cost what sixty requests cost. Queries and subscriptions: 0.
 */
export function mutationCount(document: DocumentNode, operationName?: string | null): number {
  const byOperation = factsOf(document).mutations;
  const key = operationName ?? '';
  let n = byOperation.get(key);
  if (n === undefined) byOperation.set(key, (n = countMutations(document, operationName)));
  return n;
}

/**
 * Text PostgreSQL cannot store is refused before anything runs, by REST's rule
 * (api/plugins/validation.ts nullBytes): U+0000 in a string literal of the document or in a variable
 * is a 422 VALIDATION_ERROR, not the database's error as a 500.
 */
export function checkText(document: DocumentNode, variables: Record<string, unknown> | undefined): void {
  const found: string[] = [];
  if (variables) nullBytes(variables, '', found);
  if (factsOf(document).literalNul || found.length > 0) {
    const where = found.length > 0 ? `variable $${found[0].split('/')[1]}` : 'a string argument';
    throw gqlError('VALIDATION_ERROR', `${where} must not contain the null character (U+0000)`, 422);
  }
}
