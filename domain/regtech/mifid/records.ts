/** Stored MiFID II reports (mifid_reports) as the domain reads them: by id for their owner, listed, and the XML. */
import type { Principal } from '../../auth/principal';
import { getPool, type Queryable } from '../../db/pool';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { competentAuthority, type CompetentAuthority } from './jurisdictions';
import type { TransactionKind } from './transactions';
import type { ValidationIssue } from './xsd';

export const REPORT_STATUSES = ['draft', 'validated', 'submitted', 'accepted', 'rejected'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export type ReportType = 'NEWT' | 'CANC';

/** What the competent authority (or the sandbox standing in for it) answered. */
export interface AuthorityFeedback {
  authority: string;
  status: 'ACPT' | 'RJCT';
  feedbackId: string;
  receivedAt: string;
  errors: Array<{ code: string; message: string }>;
}

export interface MifidReport {
  id: string;
  environment: Environment;
  userId: string;
  transactionId: string;
  transactionKind: TransactionKind;
  reportType: ReportType;
  jurisdiction: string;
  competentAuthority: CompetentAuthority;
  transactionReferenceNumber: string;
  isin: string | null;
  status: ReportStatus;
  xsdValidated: boolean;
  xsdReason: string | null;
  validationIssues: ValidationIssue[];
  tradeExecutedAt: Date;
  deadlineAt: Date | null;
  overdue: boolean;
  flaggedAt: Date | null;
  authorityFeedback: AuthorityFeedback | null;
  cancelsReportId: string | null;
  cancelledByReportId: string | null;
  createdAt: Date;
  updatedAt: Date;
  submittedAt: Date | null;
  decidedAt: Date | null;
}

/** Every column but the XML, and the live cancellation of a NEWT. */
export const REPORT_COLUMNS = `r.id, r.environment, r.user_id, r.transaction_id, r.transaction_kind, r.report_type, r.jurisdiction,
  r.transaction_reference_number, r.isin, r.status, r.xsd_validated, r.xsd_reason, r.validation_issues, r.trade_executed_at, r.deadline_at,
  r.overdue, r.flagged_at, r.authority_feedback, r.cancels_report_id, r.created_at, r.updated_at, r.submitted_at, r.decided_at,
  (SELECT c.id FROM mifid_reports c WHERE c.cancels_report_id = r.id AND c.status <> 'rejected' ORDER BY c.created_at DESC LIMIT 1) AS cancelled_by_report_id`;

export function toReport(r: Record<string, any>): MifidReport {
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    transactionId: r.transaction_id,
    transactionKind: r.transaction_kind,
    reportType: r.report_type,
    jurisdiction: r.jurisdiction,
    competentAuthority: competentAuthority(r.jurisdiction) ?? { country: r.jurisdiction, name: r.jurisdiction },
    transactionReferenceNumber: r.transaction_reference_number,
    isin: r.isin,
    status: r.status,
    xsdValidated: r.xsd_validated,
    xsdReason: r.xsd_reason,
    validationIssues: r.validation_issues,
    tradeExecutedAt: r.trade_executed_at,
    deadlineAt: r.deadline_at,
    overdue: r.overdue,
    flaggedAt: r.flagged_at,
    authorityFeedback: r.authority_feedback,
    cancelsReportId: r.cancels_report_id,
    cancelledByReportId: r.cancelled_by_report_id ?? null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    submittedAt: r.submitted_at,
    decidedAt: r.decided_at,
  };
}

/** The caller's report in the caller's environment, else 404 REPORT_NOT_FOUND (another user's or environment's included). */
export async function getOwnReport(p: Pick<Principal, 'userId' | 'environment'>, id: string, c: Queryable = getPool()): Promise<MifidReport> {
  const { rows } = await c.query(`SELECT ${REPORT_COLUMNS} FROM mifid_reports r WHERE r.id = $1 AND r.user_id = $2 AND r.environment = $3`, [id, p.userId, p.environment]);
  if (!rows[0]) throw new DomainError('REPORT_NOT_FOUND', 'MiFID II report not found');
  return toReport(rows[0]);
}

/** The report file as built (BizData with AppHdr and the auth.016 Document). */
export async function getOwnReportXml(p: Pick<Principal, 'userId' | 'environment'>, id: string): Promise<{ id: string; xml: string }> {
  const { rows } = await getPool().query<{ xml: string }>('SELECT xml FROM mifid_reports WHERE id = $1 AND user_id = $2 AND environment = $3', [id, p.userId, p.environment]);
  if (!rows[0]) throw new DomainError('REPORT_NOT_FOUND', 'MiFID II report not found');
  return { id, xml: rows[0].xml };
}

export interface ReportFilter {
  status?: string;
  transaction_id?: string;
}

/** The caller's reports, newest first, one page. */
export async function listOwnReports(p: Pick<Principal, 'userId' | 'environment'>, filter: ReportFilter, page: { perPage: number; offset: number }): Promise<{ items: MifidReport[]; total: number }> {
  if (filter.status !== undefined && !(REPORT_STATUSES as readonly string[]).includes(filter.status)) {
    throw new DomainError('INVALID_STATUS_FILTER', `status must be one of ${REPORT_STATUSES.join(', ')}`);
  }
  const where = 'r.user_id = $1 AND r.environment = $2 AND ($3::text IS NULL OR r.status = $3) AND ($4::text IS NULL OR r.transaction_id = $4)';
  const args = [p.userId, p.environment, filter.status ?? null, filter.transaction_id ?? null];
  const { rows } = await getPool().query(
    `SELECT ${REPORT_COLUMNS}, count(*) OVER ()::int AS total FROM mifid_reports r WHERE ${where} ORDER BY r.created_at DESC, r.id DESC LIMIT $5 OFFSET $6`,
    [...args, page.perPage, page.offset],
  );
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (!rows[0] && page.offset > 0) total = (await getPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM mifid_reports r WHERE ${where}`, args)).rows[0].n;
  return { items: rows.map(toReport), total };
}

export interface MifidStatus {
  active: true;
  reports: number;
  by_status: Record<ReportStatus, number>;
  overdue: number;
  last_report_at: string | null;
}

/** The caller's reports in the caller's environment by status, how many are flagged overdue, and the last one (GET /regtech/status). */
export async function mifidStatus(p: Pick<Principal, 'userId' | 'environment'>): Promise<MifidStatus> {
  const { rows } = await getPool().query<{ status: ReportStatus; n: number; overdue: number; last: Date | null }>(
    `SELECT status, count(*)::int AS n, count(*) FILTER (WHERE overdue)::int AS overdue, max(created_at) AS last
       FROM mifid_reports WHERE user_id = $1 AND environment = $2 GROUP BY status`,
    [p.userId, p.environment],
  );
  const by = Object.fromEntries(REPORT_STATUSES.map((s) => [s, 0])) as Record<ReportStatus, number>;
  let last: Date | null = null;
  for (const r of rows) {
    by[r.status] = r.n;
    if (r.last && (!last || r.last > last)) last = r.last;
  }
  return {
    active: true,
    reports: rows.reduce((s, r) => s + r.n, 0),
    by_status: by,
    overdue: rows.reduce((s, r) => s + r.overdue, 0),
    last_report_at: last?.toISOString() ?? null,
  };
}
