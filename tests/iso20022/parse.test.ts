import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { apiError } from './refusal';
import { detectMessage, generateMessage, parseMessage, validateMessage } from '../../iso20022/index';
import { bigCamt053 } from './fixtures/samples';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const fixture = (name: string) => readFileSync(path.join(dir, name), 'utf8');


describe('parser on bank-style fixtures', () => {
  it('every fixture is valid against its schema and the business rules', () => {
    for (const name of [
      'pain.001.001.03.xml', 'pain.001.001.03.ch.02.xml', 'pain.001.001.09.xml', 'pacs.008.001.02.xml', 'pacs.008.001.08.envelope.xml',
      'pacs.002.001.03.xml', 'pacs.002.001.10.xml', 'pain.002.001.03.xml', 'camt.053.001.02.xml', 'camt.053.001.08.xml',
      'camt.054.001.04.xml', 'camt.056.001.08.xml', 'admi.002.001.01.xml',
    ]) {
      const v = validateMessage(fixture(name));
      expect({ name, errors: v.errors }).toEqual({ name, errors: [] });
    }
  });

  it('pain.001.001.03: two payment infos, BIC (not BICFI), AdrLine, structured remittance, NOTPROVIDED agent', () => {
    const p = parseMessage(fixture('pain.001.001.03.xml')) as any;
    expect(p).toMatchObject({ message_type: 'pain.001', version: 'pain.001.001.03' });
    expect(p.group_header).toMatchObject({ message_id: 'SEPA-20240305-0001', number_of_transactions: '3', control_sum: '1760.45' });
    expect(p.group_header.initiating_party.identifiers.organisation.other).toEqual([{ id: 'DE98ZZZ09999999999', scheme_proprietary: 'SEPA' }]);
    const [a, b] = p.payment_infos;
    expect(a).toMatchObject({ payment_information_id: 'PMT-2024-03-05-A', batch_booking: true, requested_execution_date: '2024-03-06', charge_bearer: 'SLEV' });
    expect(a.payment_type).toEqual({ service_level: 'SEPA' });
    expect(a.debtor).toMatchObject({
      name: 'Muster Handels GmbH',
      postal_address: { country: 'DE', address_lines: ['Hauptstrasse 1', '10115 Berlin'] },
      account: { iban: 'DE89370400440532013000', currency: 'EUR' },
      agent: { bic: 'COBADEFFXXX' },
    });
    expect(a.transactions[0]).toMatchObject({ instruction_id: 'INSTR-0001', end_to_end_id: 'RE-2024-0815', amount: '1250.00', currency: 'EUR' });
    expect(a.transactions[0].creditor.postal_address).toEqual({ street_name: 'Damrak', building_number: '12', post_code: '1012 LG', town_name: 'Amsterdam', country: 'NL' });
    expect(a.transactions[0].remittance_information.structured[0]).toEqual({
      creditor_reference: 'RF18539007547034',
      creditor_reference_type: 'SCOR',
      referred_documents: [{ number: 'INV-4711', type: 'CINV', date: '2024-02-28' }],
    });
    expect(a.transactions[1]).toMatchObject({ end_to_end_id: 'NOTPROVIDED', purpose: 'ELEC' });
    expect(a.transactions[1].creditor.agent).toBeUndefined();
    expect(a.transactions[1].uetr).toBeUndefined();
    expect(b.debtor.agent).toEqual({ other_id: 'NOTPROVIDED' });
  });

  it('Swiss pain.001.001.03.ch.02 reads structurally with the base field names', () => {
    const xml = fixture('pain.001.001.03.ch.02.xml');
    expect(detectMessage(xml)).toMatchObject({ message_type: 'pain.001', version: 'pain.001.001.03', variant: 'ch.02' });
    const p = parseMessage(xml) as any;
    expect(p).toMatchObject({ version: 'pain.001.001.03', variant: 'ch.02', namespace: 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.03.ch.02' });
    expect(p.group_header.initiating_party).toEqual({ name: 'Alpenblick AG', contact: { name: 'Buchhaltung' } });
    const tx = p.payment_infos[0].transactions[0];
    expect(tx).toMatchObject({ amount: '3949.75', currency: 'CHF', end_to_end_id: 'CH-E2E-QR-1' });
    expect(tx.remittance_information.structured[0]).toEqual({ creditor_reference: '210000000003139471430009017', creditor_reference_type: 'QRR' });
    expect(p.payment_infos[0].batch_booking).toBe(false);
    const v = validateMessage(xml);
    expect(v.valid).toBe(true);
    expect(v.schemas.document).toBe('pain.001.001.03');
    expect(v.notes.join(' ')).toMatch(/base ISO schema pain\.001\.001\.03/);
  });

  it('Swiss variant under the SIX namespace is recognised too', () => {
    const xml = fixture('pain.001.001.03.ch.02.xml').replace(
      'urn:iso:std:iso:20022:tech:xsd:pain.001.001.03.ch.02',
      'http://www.six-interbank-clearing.com/de/pain.001.001.03.ch.02.xsd',
    );
    expect(detectMessage(xml)).toMatchObject({ version: 'pain.001.001.03', variant: 'ch.02' });
    expect(validateMessage(xml).valid).toBe(true);
  });

  it('pain.001.001.09: ReqdExctnDt as DtTm, BICFI plus clearing id, LEI, other account id, UETR, JPY', () => {
    const p = parseMessage(fixture('pain.001.001.09.xml')) as any;
    const pi = p.payment_infos[0];
    expect(pi.requested_execution_date).toBe('2024-06-04T09:00:00-04:00');
    expect(pi.debtor.agent).toEqual({ bic: 'CHASUS33', clearing_system_code: 'USABA', clearing_member_id: '021000021' });
    expect(pi.debtor.account).toEqual({ other: { id: '000123456789', scheme_code: 'BBAN' }, currency: 'USD' });
    expect(pi.debtor.postal_address).toMatchObject({ building_name: 'Tower B', floor: '12', country_subdivision: 'NY' });
    expect(pi.payment_type).toEqual({ instruction_priority: 'HIGH', category_purpose: 'SUPP' });
    expect(p.group_header.initiating_party.identifiers).toEqual({ organisation: { lei: '5493001KJTIIGC8Y1R12' } });
    expect(p.group_header.control_sum).toBeUndefined();
    expect(pi.transactions[0]).toMatchObject({ uetr: '8a562c67-ca16-48ba-b074-65581be6f001', amount: '1500000', currency: 'JPY' });
  });

  it('pacs.008.001.08 with prefixed namespaces inside an envelope with AppHdr', () => {
    const p = parseMessage(fixture('pacs.008.001.08.envelope.xml')) as any;
    expect(p.business_application_header).toMatchObject({
      version: 'head.001.001.02',
      from: { financial_institution: { bic: 'DEUTDEFFXXX' } },
      business_message_id: 'DB-CBPR-240701-001',
      business_service: 'swift.cbprplus.02',
    });
    expect(p.group_header).toMatchObject({ message_id: 'DB-CBPR-240701-001', settlement_method: 'INDA' });
    const tx = p.transactions[0];
    expect(tx).toMatchObject({ uetr: '3f2a1b9c-7d4e-4f60-8a1b-2c3d4e5f6a7b', amount: '98500.00', currency: 'USD', charge_bearer: 'SHAR', purpose: 'GDDS' });
    expect(tx.instructed_amount).toEqual({ amount: '98500.00', currency: 'USD' });
    expect(tx.instructing_agent).toEqual({ bic: 'DEUTDEFFXXX' });
    expect(tx.creditor.agent).toEqual({ clearing_system_code: 'USABA', clearing_member_id: '026009593' });
    expect(tx.creditor.account).toEqual({ other: { id: '7788990011' } });
  });

  it('pacs.008.001.02: same field names as in .08 (BIC → bic, total amount, proprietary clearing system)', () => {
    const p = parseMessage(fixture('pacs.008.001.02.xml')) as any;
    expect(p.group_header).toMatchObject({
      total_interbank_settlement_amount: { amount: '300.10', currency: 'EUR' },
      clearing_system: 'ST2',
      instructing_agent: { bic: 'BNPAFRPP' },
    });
    expect(p.transactions.map((t: any) => t.transaction_id)).toEqual(['FR-TX-1', 'FR-TX-2']);
    expect(p.transactions[1].debtor.account).toBeUndefined();
    expect(p.transactions[0].debtor.agent).toEqual({ bic: 'BNPAFRPP' });
  });

  it('pacs.002 in versions 3 and 10', () => {
    const v3 = parseMessage(fixture('pacs.002.001.03.xml')) as any;
    expect(v3.original_groups).toEqual([
      { original_message_id: 'STEP2-20230912-0042', original_message_name_id: 'pacs.008.001.02', original_number_of_transactions: '2', original_control_sum: '300.10', group_status: 'PART' },
    ]);
    expect(v3.transactions[0]).toMatchObject({ status_id: 'STS-1', original_transaction_id: 'FR-TX-2', status: 'RJCT', amount: '200.00', currency: 'EUR' });
    expect(v3.transactions[0].reasons).toEqual([
      { code: 'AC04', additional_information: ['Account closed'], originator: { identifiers: { organisation: { any_bic: 'ABNANL2A' } } } },
    ]);
    expect(v3.transactions[0].creditor).toEqual({ account: { iban: 'NL91ABNA0417164300' } });
    const v10 = parseMessage(fixture('pacs.002.001.10.xml')) as any;
    expect(v10.transactions[0]).toMatchObject({ original_uetr: '3f2a1b9c-7d4e-4f60-8a1b-2c3d4e5f6a7b', status: 'ACSC', acceptance_date_time: '2024-07-01T08:31:00Z' });
    expect(v10.transactions[0].instructing_agent).toEqual({ bic: 'CITIUS33' });
  });

  it('pain.002.001.03 with payment-info and transaction statuses', () => {
    const p = parseMessage(fixture('pain.002.001.03.xml')) as any;
    expect(p.group_header.debtor_agent).toEqual({ bic: 'COBADEFFXXX' });
    expect(p.original_group_information).toMatchObject({ original_message_id: 'SEPA-20240305-0001', group_status: 'PART' });
    expect(p.original_payment_infos[0].transactions[0]).toMatchObject({
      original_end_to_end_id: 'RE-2024-0815', status: 'RJCT', amount: '1250.00', original_requested_execution_date: '2024-03-06',
      reasons: [{ code: 'AM04', additional_information: ['Insufficient funds'] }],
    });
    expect(p.original_payment_infos[1]).toEqual({ original_payment_information_id: 'PMT-2024-03-05-B', status: 'ACCP', transactions: [] });
  });

  it('camt.053.001.02: balances, summary with net amount, V2 amount details, return reason', () => {
    const p = parseMessage(fixture('camt.053.001.02.xml')) as any;
    expect(p.group_header.pagination).toEqual({ page_number: '1', last_page: true });
    const s = p.statements[0];
    expect(s).toMatchObject({ id: '0532013000-2024-01', electronic_sequence_number: '31', from_date_time: '2024-01-01T00:00:00.000+01:00' });
    expect(s.account).toMatchObject({ iban: 'DE89370400440532013000', owner: { name: 'Muster Handels GmbH' }, servicer: { bic: 'COBADEFFXXX' } });
    expect(s.balances.map((b: any) => [b.type, b.amount, b.credit_debit, b.date])).toEqual([
      ['PRCD', '10000.00', 'CRDT', '2023-12-31'],
      ['CLBD', '8989.55', 'CRDT', '2024-01-31'],
    ]);
    expect(s.transaction_summary).toMatchObject({ number_of_entries: '2', net_amount: '1010.45', net_credit_debit: 'DBIT', debit: { number_of_entries: '1', sum: '1260.45' } });
    const [e1, e2] = s.entries;
    expect(e1).toMatchObject({ status: 'BOOK', booking_date: '2024-01-06', account_servicer_reference: '2024010600123', additional_information: 'SEPA Ueberweisung' });
    expect(e1.bank_transaction_code).toEqual({ domain_code: 'PMNT', family_code: 'ICDT', sub_family_code: 'ESCT', proprietary_code: 'NTRF+116+9310', proprietary_issuer: 'DK' });
    expect(e1.details[0]).toMatchObject({ message_id: 'SEPA-20240305-0001', payment_information_id: 'PMT-2024-03-05-A', end_to_end_id: 'RE-2024-0815', amount: '1260.45', currency: 'EUR' });
    expect(e1.details[0].creditor).toEqual({ name: 'Van der Berg B.V.', account: { iban: 'NL91ABNA0417164300' }, agent: { bic: 'ABNANL2A' } });
    expect(e2.entry_reference).toBeUndefined();
    expect(e2.details[0]).toMatchObject({ return_reason: 'AC04', debtor: { name: 'John Smith', account: { iban: 'GB82WEST12345698765432' } } });
  });

  it('camt.053.001.08: Sts/Cd, Pty-wrapped parties, TxDtls/Amt, DtTm value date, proprietary bank code', () => {
    const p = parseMessage(fixture('camt.053.001.08.xml')) as any;
    const s = p.statements[0];
    expect(s.pagination).toEqual({ page_number: '1', last_page: true });
    expect(s.balances[2]).toMatchObject({ type: 'CLAV', date: '2024-04-30T23:59:59Z' });
    expect(s.transaction_summary).toBeUndefined();
    const [e1, e2] = s.entries;
    expect(e1).toMatchObject({ status: 'BOOK', value_date: '2024-04-30T10:15:00Z' });
    expect(e1.details[0]).toMatchObject({
      uetr: '3f2a1b9c-7d4e-4f60-8a1b-2c3d4e5f6a7b', amount: '1000.00', currency: 'GBP', credit_debit: 'CRDT',
      instructed_amount: { amount: '1170.00', currency: 'EUR' }, interbank_settlement_date: '2024-04-30',
    });
    expect(e1.details[0].debtor).toEqual({ name: 'Rheinmetall Werkzeug AG', account: { iban: 'DE89370400440532013000' }, agent: { bic: 'DEUTDEFF' } });
    expect(e2).toMatchObject({ status: 'PDNG', bank_transaction_code: { proprietary_code: 'CHQ', proprietary_issuer: 'NWBK' }, details: [] });
    expect(s.additional_information).toBe('Intraday final');
  });

  it('camt.054.001.04, camt.056.001.08 and admi.002.001.01', () => {
    const n = parseMessage(fixture('camt.054.001.04.xml')) as any;
    expect(n.notifications[0].entries[0].details[0].remittance_information.structured[0].creditor_reference).toBe('210000000003139471430009017');
    const c = parseMessage(fixture('camt.056.001.08.xml')) as any;
    expect(c.assignment).toMatchObject({ id: 'CXL-DB-240701-3', assigner: { financial_institution: { bic: 'DEUTDEFFXXX' } } });
    expect(c.case).toEqual({ id: 'CASE-55', creator: { name: 'Rheinmetall Werkzeug AG' } });
    expect(c.underlying[0].transactions[0]).toMatchObject({
      cancellation_id: 'CXL-1', original_uetr: '3f2a1b9c-7d4e-4f60-8a1b-2c3d4e5f6a7b', amount: '98500.00',
      reasons: [{ code: 'DUPL', additional_information: ['Sent twice by mistake'] }],
      creditor: { name: 'Great Lakes Machinery LLC' },
    });
    const a = parseMessage(fixture('admi.002.001.01.xml')) as any;
    expect(a).toMatchObject({ related_reference: 'DB-CBPR-240701-001', reason: { rejecting_party_reason: 'X020', error_location: '/Document/FIToFICstmrCdtTrf/GrpHdr/SttlmInf' } });
  });

  it('parses and validates a 3,000-entry statement', () => {
    const { xml } = generateMessage(bigCamt053(3000));
    const started = performance.now();
    const p = parseMessage(xml) as any;
    const v = validateMessage(xml);
    const ms = performance.now() - started;
    expect(p.statements[0].entries).toHaveLength(3000);
    expect(p.statements[0].entries[2999]).toMatchObject({ entry_reference: 'N2999', details: [{ end_to_end_id: 'E2E-2999' }] });
    expect(v.errors).toEqual([]);
    expect(ms).toBeLessThan(10_000);
  });

  it('rejects unsupported messages and non-XML', () => {
    expect(apiError(() => parseMessage('{"a":1}'))).toMatchObject({ status: 400, code: 'INVALID_XML' });
    expect(apiError(() => parseMessage('<Document><a></Document>'))).toMatchObject({ status: 400, code: 'INVALID_XML' });
    const camt052 = '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.08"><BkToCstmrAcctRpt/></Document>';
    expect(apiError(() => parseMessage(camt052))).toMatchObject({ status: 422, code: 'UNSUPPORTED_MESSAGE_TYPE' });
    const noSchema = '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.05"><CstmrCdtTrfInitn/></Document>';
    expect(apiError(() => validateMessage(noSchema)).detail).toMatch(/pain\.001\.001\.05 is not supported/);
    expect(apiError(() => parseMessage('<invoice><total>1</total></invoice>'))).toMatchObject({ status: 422, code: 'UNSUPPORTED_MESSAGE_TYPE' });
  });
});
