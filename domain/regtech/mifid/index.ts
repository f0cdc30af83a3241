/**
 * MiFID II transaction reports (issue 16): RTS 22 reports of GCU buys and DeFi swaps as ISO 20022
 * auth.016 files validated against ESMA's schemas, their lifecycle (draft → validated → submitted
 * → accepted | rejected) with the competent authority, and the T+1 deadline schedule.
 */
export { createReport, transactionReference, clientParty, VENUE, type ReportRequest, type ClientInput } from './report';
export { submitReport } from './submit';
export { getOwnReport, getOwnReportXml, listOwnReports, mifidStatus, REPORT_STATUSES, type MifidStatus, type MifidReport, type ReportStatus, type ReportType, type AuthorityFeedback, type ReportFilter } from './records';
export { listInstruments, registerInstrument, instrumentFor, type MifidInstrument, type RegisterInstrumentRequest } from './instruments';
export { authorityFor, SandboxAuthority, type CompetentAuthorityAdapter } from './authority';
export { easterSunday, isTarget2Holiday, isWorkingDay, nextWorkingDay, reportingDeadline } from './calendar';
export { competentAuthority, requireJurisdiction, MIFID_JURISDICTIONS } from './jurisdictions';
export { flagOverdueReports, type OverdueRun } from './overdue';
export { ensureMifidDeadlineSchedule, MIFID_DEADLINE_SCHEDULE_ID, MIFID_DEADLINE_WORKFLOW } from './schedule';
export { mifidSettings } from './settings';
export { validateReportXml, SCHEMA_FILES, type XsdOutcome, type ValidationIssue } from './xsd';
export { buildReportXml, concatIdentifier } from './auth016';
export { COMPLIANCE_REPORT_GENERATED } from './events';
