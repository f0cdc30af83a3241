import type { FastifyRequest } from 'fastify';
import { MAX_PAGE } from './schemas';

export interface PageParams {
  page: number;
  perPage: number;
  offset: number;
}

/** Routes validate page against MAX_PAGE (api/schemas.ts paginationQuery); this clamp is the backstop. */
export function pageParams(query: { page?: number; per_page?: number }): PageParams {
  const page = Math.min(MAX_PAGE, Math.max(1, Math.trunc(query.page ?? 1)));
  const perPage = Math.min(100, Math.max(1, query.per_page ?? 20));
  return { page, perPage, offset: (page - 1) * perPage };
}

/** Builds `meta` and `links` for a paginated list, keeping the caller's other query parameters. */
export function paginate<T>(request: FastifyRequest, items: T[], total: number, p: PageParams, pageParam = 'page') {
  const lastPage = Math.max(1, Math.ceil(total / p.perPage));
  const url = new URL(request.url, 'http://placeholder');
  const link = (page: number) => {
    url.searchParams.set(pageParam, String(page));
    if (pageParam === 'page') url.searchParams.set('per_page', String(p.perPage));
    return `${url.pathname}?${url.searchParams.toString()}`;
  };
  return {
    data: items,
    meta: {
      current_page: p.page,
      last_page: lastPage,
      per_page: p.perPage,
      total,
      from: items.length ? p.offset + 1 : null,
      to: items.length ? p.offset + items.length : null,
    },
    links: {
      first: link(1),
      last: link(lastPage),
      prev: p.page > 1 ? link(Math.min(p.page - 1, lastPage)) : null,
      next: p.page < lastPage ? link(p.page + 1) : null,
    },
  };
}
