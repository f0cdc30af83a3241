/**
 * Sending a report file to the competent authority (through an ARM or the NCA's own gateway) and
 * reading its answer. Two adapters:
 *
 * - sandbox (the sandbox environment): a deterministic stand-in for an ARM/NCA that only reads
 *   the file, as a real one does. It validates the file against the schemas (rejects XSD_INVALID),
 *   then keeps a register of accepted transaction reference numbers per executing entity (table
 *   mifid_sandbox_authority_register): a NEWT whose TRN is already on file is rejected
 *   (DUPLICATE_TRN), a CANC whose TRN is not on file is rejected (TRN_NOT_FOUND), and a CANC takes
 *   its TRN off file so a corrected NEWT may follow. Re-sending the same report gets the same answer.
 * - production: no ARM or NCA connection is built into this platform, so every submission is
 *   refused with 503 MIFID_AUTHORITY_NOT_CONFIGURED before anything changes: production never
 *   pretends a report was filed.
 */
import { createHash } from 'node:crypto';
import libxml from 'libxmljs2';
import { LIBXML_SAFE_OPTIONS } from '../../../iso20022/xsd';
import { withTransaction } from '../../db/pool';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { NS } from './auth016';
import type { AuthorityFeedback } from './records';
import { validateReportXml } from './xsd';

export interface AuthoritySubmission {
  reportId: string;
  environment: Environment;
  jurisdiction: string;
  xml: string;
}

export interface CompetentAuthorityAdapter {
  readonly name: string;
  /** Throws (503) when submissions cannot be sent at all, before the report changes state. */
  assertAvailable(): void;
  submit(s: AuthoritySubmission): Promise<AuthorityFeedback>;
}

const feedbackId = (reportId: string, status: string) => `SBX${createHash('sha256').update(`${reportId}:${status}`).digest('hex').slice(0, 24).toUpperCase()}`;

/** What the sandbox reads from a valid file: New or Cxl, its TxId and ExctgPty. */
function readTransaction(xml: string): { type: 'NEWT' | 'CANC'; trn: string; executingLei: string } {
  const doc = libxml.parseXml(xml, LIBXML_SAFE_OPTIONS);
  const ns = { a: NS.auth016 };
  const tx = doc.get('//a:Document/a:FinInstrmRptgTxRpt/a:Tx/*', ns) as libxml.Element | null;
  const text = (name: string) => (tx?.get(`a:${name}`, ns) as libxml.Element | null)?.text() ?? '';
  return { type: tx?.name() === 'Cxl' ? 'CANC' : 'NEWT', trn: text('TxId'), executingLei: text('ExctgPty') };
}

export class SandboxAuthority implements CompetentAuthorityAdapter {
  readonly name = 'sandbox';
  constructor(private readonly xsdDir: string) {}

  assertAvailable(): void {}

  async submit(s: AuthoritySubmission): Promise<AuthorityFeedback> {
    const receivedAt = new Date().toISOString();
    const answer = (status: 'ACPT' | 'RJCT', errors: AuthorityFeedback['errors'] = []): AuthorityFeedback => ({
      authority: `sandbox ${s.jurisdiction} competent authority`,
      status,
      feedbackId: feedbackId(s.reportId, status),
      receivedAt,
      errors,
    });
    const check = validateReportXml(s.xml, this.xsdDir);
    if (check.issues.some((i) => i.code === 'XSD_SCHEMA_UNAVAILABLE')) {
      throw new DomainError('MIFID_AUTHORITY_UNAVAILABLE', `The sandbox authority cannot validate reports: ${check.reason}`);
    }
    if (!check.validated) {
      return answer('RJCT', check.issues.slice(0, 20).map((i) => ({ code: 'XSD_INVALID', message: `${i.part ? `${i.part} ` : ''}line ${i.line ?? 0}: ${i.message}` })));
    }
    const t = readTransaction(s.xml);
    return withTransaction(async (c) => {
      if (t.type === 'NEWT') {
        const { rows: again } = await c.query('SELECT 1 FROM mifid_sandbox_authority_register WHERE report_id = $1 AND cancelled_at IS NULL', [s.reportId]);
        if (again.length > 0) return answer('ACPT');
        const { rowCount } = await c.query(
          `INSERT INTO mifid_sandbox_authority_register (report_id, environment, jurisdiction, executing_lei, transaction_reference_number)
           VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (environment, executing_lei, transaction_reference_number) WHERE cancelled_at IS NULL DO NOTHING`,
          [s.reportId, s.environment, s.jurisdiction, t.executingLei, t.trn],
        );
        return rowCount === 1 ? answer('ACPT') : answer('RJCT', [{ code: 'DUPLICATE_TRN', message: `A report with transaction reference number ${t.trn} of ${t.executingLei} is already on file` }]);
      }
      const { rows: again } = await c.query('SELECT 1 FROM mifid_sandbox_authority_register WHERE cancel_report_id = $1', [s.reportId]);
      if (again.length > 0) return answer('ACPT');
      const { rowCount } = await c.query(
        `UPDATE mifid_sandbox_authority_register SET cancelled_at = now(), cancel_report_id = $4
          WHERE environment = $1 AND executing_lei = $2 AND transaction_reference_number = $3 AND cancelled_at IS NULL`,
        [s.environment, t.executingLei, t.trn, s.reportId],
      );
      return rowCount === 1 ? answer('ACPT') : answer('RJCT', [{ code: 'TRN_NOT_FOUND', message: `No report with transaction reference number ${t.trn} of ${t.executingLei} is on file to cancel` }]);
    });
  }
}

export class UnconfiguredAuthority implements CompetentAuthorityAdapter {
  readonly name = 'production';
  async submit(): Promise<AuthorityFeedback> {
    this.assertAvailable();
    throw new Error('unreachable');
  }

  assertAvailable(): void {
    throw new DomainError(
      'MIFID_AUTHORITY_NOT_CONFIGURED',
      'No connection to an ARM or competent authority is configured for production: the report was not sent and stays as it was',
    );
  }
}

/** The adapter of an environment: the sandbox authority in sandbox, the (unconfigured) production one otherwise. */
export function authorityFor(environment: Environment, xsdDir: string): CompetentAuthorityAdapter {
  return environment === 'sandbox' ? new SandboxAuthority(xsdDir) : new UnconfiguredAuthority();
}
