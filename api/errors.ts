/**
 * Errors every route throws. The error handler turns an ApiError into the
 * envelope `{ errors: [{ status, code, title, detail, source }] }`.
 */
export interface ErrorSource {
  pointer?: string;
  parameter?: string;
  header?: string;
}

export interface ErrorObject {
  status: string;
  code: string;
  title: string;
  detail: string;
  source?: ErrorSource;
  meta?: Record<string, unknown>;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function titleFor(status: number): string {
  return TITLES[status] ?? 'Error';
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly source?: ErrorSource;
  readonly headers?: Record<string, string>;
  readonly extra: ErrorObject[];

  constructor(
    status: number,
    code: string,
    detail: string,
    opts: { source?: ErrorSource; title?: string; headers?: Record<string, string>; extra?: ErrorObject[] } = {},
  ) {
    super(detail);
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.title = opts.title ?? titleFor(status);
    this.source = opts.source;
    this.headers = opts.headers;
    this.extra = opts.extra ?? [];
  }

  toErrorObjects(): ErrorObject[] {
    const first: ErrorObject = { status: String(this.status), code: this.code, title: this.title, detail: this.detail };
    if (this.source) first.source = this.source;
    return [first, ...this.extra];
  }
}

export const badRequest = (code: string, detail: string, source?: ErrorSource) => new ApiError(400, code, detail, { source });
export const unprocessable = (code: string, detail: string, source?: ErrorSource) =>
  new ApiError(422, code, detail, { source });
export const conflict = (code: string, detail: string) => new ApiError(409, code, detail);
