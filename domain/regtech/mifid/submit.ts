/**
 * Submitting a report to the competent authority of its jurisdiction (authority.ts), one database
 * transaction per state change: draft → validated (the schemas are checked again: a report built
 * while they were missing can pass now), validated → submitted, then submitted → accepted or
 * rejected with the authority's feedback. An unreachable authority leaves the report submitted;
 * submitting it again re-sends it (the authority answers a re-sent report as before).
 */
import type { Principal } from '../../auth/principal';
import { getPool } from '../../db/pool';
import { DomainError } from '../../platform/errors';
import { authorityFor } from './authority';
import { getOwnReport, getOwnReportXml, type MifidReport } from './records';
import { mifidSettings } from './settings';
import { validateReportXml } from './xsd';

export async function submitReport(p: Principal, id: string): Promise<MifidReport> {
  const settings = mifidSettings();
  const report = await getOwnReport(p, id);
  if (report.status === 'accepted' || report.status === 'rejected') {
    throw new DomainError('REPORT_ALREADY_DECIDED', `The report was already ${report.status} by the competent authority; build a new one (a NEWT, or a CANC of an accepted NEWT)`);
  }
  const { xml } = await getOwnReportXml(p, id);
  const pool = getPool();
  if (report.status === 'draft') {
    const outcome = validateReportXml(xml, settings.xsdDir);
    if (!outcome.validated) {
      throw new DomainError('REPORT_NOT_VALIDATED', `Only a report that passed schema validation is submitted. ${outcome.reason}`, undefined, { validation_issues: outcome.issues.slice(0, 20) });
    }
    await pool.query(
      `UPDATE mifid_reports SET status = 'validated', xsd_validated = true, xsd_reason = NULL, validation_issues = '[]', updated_at = now()
        WHERE id = $1 AND status = 'draft'`,
      [id],
    );
  }
  const authority = authorityFor(p.environment, settings.xsdDir);
  authority.assertAvailable();
  const { rowCount } = await pool.query(
    `UPDATE mifid_reports SET status = 'submitted', submitted_at = COALESCE(submitted_at, now()), updated_at = now()
      WHERE id = $1 AND status IN ('validated', 'submitted')`,
    [id],
  );
  if (rowCount === 0) return getOwnReport(p, id); // decided meanwhile by a concurrent submission
  const feedback = await authority.submit({ reportId: id, environment: p.environment, jurisdiction: report.jurisdiction, xml });
  await pool.query(
    `UPDATE mifid_reports SET status = $2, decided_at = now(), authority_feedback = $3, updated_at = now() WHERE id = $1 AND status = 'submitted'`,
    [id, feedback.status === 'ACPT' ? 'accepted' : 'rejected', JSON.stringify(feedback)],
  );
  return getOwnReport(p, id);
}
