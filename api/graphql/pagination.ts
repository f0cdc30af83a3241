/**
 * Paginated lists (spec: `data` and `paginatorInfo`): every list field takes `page` (from 1) and
 * `perPage` (1–100, default 20) and returns `{ data, paginatorInfo }`. A page past the end is
 * empty with `currentPage` as asked and `hasMorePages` false; an empty list has lastPage 1.
 */
import { MAX_PAGE } from '../schemas';
import { gqlError } from './errors';

export const PAGINATION_SDL = /* GraphQL */ `
  "Where a page sits in its list."
  type PaginatorInfo {
    "Items in the whole list."
    total: Int!
    currentPage: Int!
    "At least 1 (an empty list has one empty page)."
    lastPage: Int!
    perPage: Int!
    hasMorePages: Boolean!
    "Items on this page."
    count: Int!
    "Position (from 1) of this page's first item in the list; null when the page is empty."
    firstItem: Int
    lastItem: Int
  }
`;

/** The SDL of `<Type>Paginator`. */
export const paginatorOf = (type: string): string => `
  type ${type}Paginator {
    data: [${type}!]!
    paginatorInfo: PaginatorInfo!
  }
`;

/** The arguments every list field takes (SDL fragment). */
export const PAGE_ARGS = 'page: Int = 1, perPage: Int = 20';

export interface PageArgs {
  page?: number | null;
  perPage?: number | null;
}

export interface Page {
  page: number;
  perPage: number;
  offset: number;
}

export function pageOf(args: PageArgs): Page {
  const page = args.page ?? 1;
  const perPage = args.perPage ?? 20;
  if (page < 1 || page > MAX_PAGE) throw gqlError('VALIDATION_ERROR', `page must be between 1 and ${MAX_PAGE}`, 422);
  if (perPage < 1 || perPage > 100) throw gqlError('VALIDATION_ERROR', 'perPage must be between 1 and 100', 422);
  return { page, perPage, offset: (page - 1) * perPage };
}

export function paginated<T>(data: T[], total: number, p: Page) {
  const lastPage = Math.max(1, Math.ceil(total / p.perPage));
  return {
    data,
    paginatorInfo: {
      total,
      currentPage: p.page,
      lastPage,
      perPage: p.perPage,
      hasMorePages: p.page < lastPage,
      count: data.length,
      firstItem: data.length ? p.offset + 1 : null,
      lastItem: data.length ? p.offset + data.length : null,
    },
  };
}

/** For domain functions that return a whole (bounded) list: one page of it. */
export function paginateList<T>(all: T[], args: PageArgs) {
  const p = pageOf(args);
  return paginated(all.slice(p.offset, p.offset + p.perPage), all.length, p);
}
