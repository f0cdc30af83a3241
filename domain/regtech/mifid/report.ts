/**
 * Building a MiFID II transaction report (RTS 22, Delegated Regulation (EU) 2017/590) for one of
 * the caller's trades: NEWT for an executed GCU buy or DeFi swap whose instrument is in the
 * register, CANC for a NEWT of the same trade that is not already cancelled. The report file is
 * built (auth016.ts), validated against ESMA's schemas (xsd.ts) and stored with
 * compliance.report.generated in one transaction: 'validated' when the schemas passed, 'draft'
 * otherwise (schemas absent, or failed), with the issues. Everything is checked before that
 * transaction, so a refusal stores nothing. docs/regtech.md maps each RTS 22 field.
 */
import type { Principal } from '../../auth/principal';
import { getPool, withTransaction, type Queryable } from '../../db/pool';
import { writeOutboxEvent } from '../../events/outbox';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { buildReportXml, concatIdentifier, type NewTransaction, type Party } from './auth016';
import { reportingDeadline } from './calendar';
import { requireIdentifier } from './identifiers';
import { requireJurisdiction, type CompetentAuthority } from './jurisdictions';
import { getOwnReport, type MifidReport, type ReportType } from './records';
import { mifidSettings, type MifidSettings } from './settings';
import { findTrade, reportableTrade, type Trade } from './transactions';
import { validateReportXml, type XsdOutcome } from './xsd';

/** Off venue (RTS 22 field 36): neither trade is executed on an EU trading venue, SI or organised platform outside the Union. */
export const VENUE = 'XOFF';

export interface ClientInput {
  lei?: string | null;
  first_name?: string | null;
  surname?: string | null;
  birth_date?: string | null;
  nationality?: string | null;
  national_id?: string | null;
  national_id_type?: 'NIDN' | 'CCPT' | null;
}

export interface ReportRequest {
  transaction_id: string;
  report_type: ReportType;
  jurisdiction: string;
  client?: ClientInput | null;
}

/** The transaction reference number (field 2): the trade id in capitals without separators, so a CANC carries its NEWT's. */
export function transactionReference(tradeId: string): string {
  return requireIdentifier('TRN', tradeId.replace(/[^A-Za-z0-9]/g, '').toUpperCase().slice(0, 52), '/transaction_id');
}

const present = (v: string | null | undefined): v is string => typeof v === 'string' && v.trim() !== '';
const PERSON_FIELDS = ['first_name', 'surname', 'birth_date', 'nationality', 'national_id', 'national_id_type'] as const;

/** The customer as buyer or seller (fields 7-11 / 16-20): an LEI, or a natural person by national identifier or CONCAT. */
export function clientParty(c: ClientInput | null | undefined, branchCountry: string): Party {
  if (!c || (!present(c.lei) && PERSON_FIELDS.every((f) => !present(c[f] ?? undefined)))) {
    throw new DomainError(
      'CLIENT_IDENTIFICATION_REQUIRED',
      'A NEWT report identifies the customer (RTS 22 fields 7 and 16): client.lei for a legal entity, or client.first_name, surname, birth_date ' +
        'and nationality (and national_id where that is the nationality’s identifier; CONCAT otherwise) for a natural person',
      '/client',
    );
  }
  if (present(c.lei)) {
    if (PERSON_FIELDS.some((f) => present(c[f] ?? undefined))) throw new DomainError('CLIENT_IDENTIFICATION_AMBIGUOUS', 'Give client.lei or a natural person’s fields, not both', '/client');
    return { lei: requireIdentifier('LEI', c.lei, '/client/lei'), countryOfBranch: branchCountry };
  }
  for (const f of ['first_name', 'surname', 'birth_date', 'nationality'] as const) {
    if (!present(c[f])) throw new DomainError('CLIENT_IDENTIFICATION_INCOMPLETE', `client.${f} is needed to identify a natural person (or give client.lei)`, `/client/${f}`);
  }
  const nationality = requireIdentifier('COUNTRY', c.nationality!, '/client/nationality');
  const birth = c.birth_date!.trim();
  const t = Date.parse(`${birth}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(birth) || Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== birth || t > Date.now() || birth < '1900-01-01') {
    throw new DomainError('INVALID_BIRTH_DATE', 'client.birth_date must be a past date YYYY-MM-DD', '/client/birth_date');
  }
  const firstName = c.first_name!.trim();
  const surname = c.surname!.trim();
  let id: string;
  let scheme: 'NIDN' | 'CCPT' | 'CONCAT';
  if (present(c.national_id)) {
    id = `${nationality}${c.national_id.replace(/[\s-]/g, '').toUpperCase()}`;
    if (!/^[A-Z]{2}[A-Z0-9]{1,33}$/.test(id)) throw new DomainError('INVALID_NATIONAL_ID', 'client.national_id must be 1 to 33 letters and digits', '/client/national_id');
    scheme = c.national_id_type ?? 'NIDN';
  } else {
    id = concatIdentifier(nationality, birth, firstName, surname);
    if (!/^[A-Z]{2}[0-9]{8}[A-Z][A-Z#]{4}[A-Z][A-Z#]{4}$/.test(id)) {
      const which = /^[A-Z]{2}[0-9]{8}[A-Z]/.test(id) ? 'surname' : 'first_name';
      throw new DomainError('INVALID_CLIENT_NAME', `client.${which} has no Latin letters to form the CONCAT identifier; give client.national_id`, `/client/${which}`);
    }
    scheme = 'CONCAT';
  }
  return { person: { firstName, surname, birthDate: birth, id, scheme }, countryOfBranch: branchCountry };
}

interface Built {
  type: ReportType;
  xml: string;
  outcome: XsdOutcome;
  isin: string | null;
  tradeExecutedAt: Date;
  deadlineAt: Date | null;
  cancelsReportId: string | null;
}

const header = (s: MifidSettings, a: CompetentAuthority, id: string, at: Date) => ({ from: s.submittingLei, to: a.country, businessMessageId: `MFR${id.slice(4)}`, createdAt: at });

async function buildNew(id: string, trade: Trade, body: ReportRequest, s: MifidSettings, a: CompetentAuthority, trn: string, now: Date): Promise<Built> {
  const rt = await reportableTrade(trade, getPool());
  const isin = requireIdentifier('ISIN', rt.instrument.isin, '/transaction_id');
  const client = clientParty(body.client, a.country);
  const firm: Party = { lei: s.firmLei };
  const tx: NewTransaction = {
    type: 'NEWT',
    transactionReferenceNumber: trn,
    executingLei: s.firmLei,
    investmentFirm: s.investmentFirm,
    submittingLei: s.submittingLei,
    buyer: rt.clientSide === 'buy' ? client : firm,
    seller: rt.clientSide === 'buy' ? firm : client,
    tradedAt: rt.executedAt,
    capacity: rt.capacity,
    quantity: rt.quantity,
    price: rt.price,
    priceCurrency: rt.priceCurrency,
    venue: requireIdentifier('MIC', VENUE, '/transaction_id'),
    isin,
    // Dealing on own account (a GCU buy), the platform's issuance algorithm takes the decision; as matched principal the client does.
    investmentDecisionAlgo: rt.capacity === 'DEAL' ? rt.algorithm : undefined,
    executionAlgo: rt.algorithm,
  };
  const xml = buildReportXml(header(s, a, id, now), tx);
  return { type: 'NEWT', xml, outcome: validateReportXml(xml, s.xsdDir), isin, tradeExecutedAt: rt.executedAt, deadlineAt: reportingDeadline(rt.executedAt), cancelsReportId: null };
}

/**
 * The NEWT of this trade a CANC cancels: one sent to the authority (submitted or accepted) and not
 * cancelled by a live CANC, an accepted one first; locked until the CANC is stored. A NEWT never
 * sent needs no cancellation (and a rejected one was never on file).
 */
async function newtToCancel(p: Principal, tradeId: string, c: Queryable): Promise<{ id: string; isin: string | null; trade_executed_at: Date }> {
  const { rows } = await c.query<{ id: string; isin: string | null; trade_executed_at: Date; cancelled: boolean }>(
    `SELECT r.id, r.isin, r.trade_executed_at,
            EXISTS (SELECT 1 FROM mifid_reports x WHERE x.cancels_report_id = r.id AND x.status <> 'rejected') AS cancelled
       FROM mifid_reports r
      WHERE r.transaction_id = $1 AND r.user_id = $2 AND r.environment = $3 AND r.report_type = 'NEWT' AND r.status IN ('submitted', 'accepted')
      ORDER BY cancelled, r.status = 'accepted' DESC, r.created_at DESC
      FOR UPDATE OF r`,
    [tradeId, p.userId, p.environment],
  );
  if (rows.length === 0) throw new DomainError('NO_REPORT_TO_CANCEL', `CANC needs a NEWT report of ${tradeId.slice(0, 60)} that was submitted or accepted; there is none (an unsent draft needs no cancellation)`, '/report_type');
  if (rows[0].cancelled) throw new DomainError('REPORT_ALREADY_CANCELLED', `Every NEWT report of ${tradeId.slice(0, 60)} is already cancelled (${rows.map((r) => r.id).join(', ')})`, '/report_type');
  return rows[0];
}

function buildCancel(id: string, target: { id: string; isin: string | null; trade_executed_at: Date }, s: MifidSettings, a: CompetentAuthority, trn: string, now: Date): Built {
  const xml = buildReportXml(header(s, a, id, now), { type: 'CANC', transactionReferenceNumber: trn, executingLei: s.firmLei, submittingLei: s.submittingLei });
  return { type: 'CANC', xml, outcome: validateReportXml(xml, s.xsdDir), isin: target.isin, tradeExecutedAt: target.trade_executed_at, deadlineAt: null, cancelsReportId: target.id };
}

/** Builds, validates and stores a report with its compliance.report.generated event; returns it. */
export async function createReport(p: Principal, body: ReportRequest, now: Date = new Date()): Promise<MifidReport> {
  const settings = mifidSettings();
  const authority = requireJurisdiction(body.jurisdiction);
  if (body.report_type !== 'NEWT' && body.report_type !== 'CANC') throw new DomainError('INVALID_REPORT_TYPE', 'report_type must be NEWT or CANC', '/report_type');
  const trade = await findTrade(p.userId, p.environment, body.transaction_id, getPool());
  const trn = transactionReference(trade.id);
  const id = newId('mfr');
  const prebuilt = body.report_type === 'NEWT' ? await buildNew(id, trade, body, settings, authority, trn, now) : null;
  try {
    await withTransaction(async (c) => {
      const b = prebuilt ?? buildCancel(id, await newtToCancel(p, trade.id, c), settings, authority, trn, now);
      const status = b.outcome.validated ? 'validated' : 'draft';
      await c.query(
        `INSERT INTO mifid_reports (id, environment, user_id, transaction_id, transaction_kind, report_type, jurisdiction, transaction_reference_number,
           isin, status, xml, xsd_validated, xsd_reason, validation_issues, trade_executed_at, deadline_at, cancels_report_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18)`,
        [id, p.environment, p.userId, trade.id, trade.kind, b.type, authority.country, trn, b.isin, status, b.xml, b.outcome.validated, b.outcome.reason,
          JSON.stringify(b.outcome.issues), b.tradeExecutedAt, b.deadlineAt, b.cancelsReportId, now],
      );
      await writeOutboxEvent(c, {
        type: 'compliance.report.generated',
        environment: p.environment,
        userId: p.userId,
        aggregateType: 'mifid_report',
        aggregateId: id,
        data: {
          framework: 'mifid_ii', report_id: id, report_type: b.type, transaction_id: trade.id, transaction_kind: trade.kind, jurisdiction: authority.country,
          transaction_reference_number: trn, isin: b.isin, status, xsd_validated: b.outcome.validated, deadline_at: b.deadlineAt?.toISOString() ?? null,
          cancels_report_id: b.cancelsReportId, generated_at: now.toISOString(),
        },
      });
    });
  } catch (err) {
    const e = err as { code?: string; constraint?: string };
    if (e.code === '23505' && e.constraint === 'mifid_reports_one_open_newt_key') {
      throw new DomainError('REPORT_IN_PROGRESS', `A NEWT report of ${trade.id.slice(0, 60)} is already being reported (draft, validated or submitted): submit it, or wait for its outcome`, '/transaction_id');
    }
    if (e.code === '23505' && e.constraint === 'mifid_reports_one_live_cancel_key') {
      throw new DomainError('REPORT_ALREADY_CANCELLED', `That NEWT report of ${trade.id.slice(0, 60)} was just cancelled`, '/report_type');
    }
    throw err;
  }
  return getOwnReport(p, id);
}
