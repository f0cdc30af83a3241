import { describe, expect, it } from 'vitest';
import { generateMessage, parseMessage, validateMessage } from '../../iso20022/index';
import { versionsOf } from '../../iso20022/catalog';
import { creditor, debtor, IBAN_DE, IBAN_FR, SAMPLES, type SampleType } from './fixtures/samples';

const DEFAULTS: Record<SampleType, string> = {
  'pacs.008': 'pacs.008.001.08',
  'pacs.002': 'pacs.002.001.10',
  'pain.001': 'pain.001.001.09',
  'pain.002': 'pain.002.001.10',
  'camt.053': 'camt.053.001.08',
  'camt.054': 'camt.054.001.08',
  'camt.056': 'camt.056.001.08',
  'admi.002': 'admi.002.001.01',
};

function roundTrip(input: Record<string, unknown>) {
  const generated = generateMessage(input);
  const validation = validateMessage(generated.xml);
  expect(validation.errors).toEqual([]);
  expect(validation.valid).toBe(true);
  const parsed = parseMessage(generated.xml) as Record<string, any>;
  expect(parsed.version).toBe(generated.version);
  return { generated, parsed };
}

/** Fields checked after generate → parse, identical in every version of a type. */
const CHECKS: Record<SampleType, (p: any, g: any) => void> = {
  'pain.001': (p, g) => {
    expect(p.group_header.message_id).toBe('PAIN-RT-1');
    expect(p.group_header.number_of_transactions).toBe('3');
    expect(p.group_header.control_sum).toBe('11349.50');
    expect(p.payment_infos.map((pi: any) => pi.payment_information_id)).toEqual(['PI-1', 'PI-2']);
    const [t1, t2] = p.payment_infos[0].transactions;
    expect(t1).toMatchObject({ end_to_end_id: 'E2E-1', amount: '1250.50', currency: 'EUR' });
    expect(t1.creditor).toMatchObject({ name: creditor.name, account: { iban: IBAN_FR }, agent: { bic: 'BNPAFRPPXXX' } });
    expect(t1.remittance_information.unstructured).toEqual(['Invoice 1']);
    expect(t2).toMatchObject({ instruction_id: 'I-2', amount: '99.00' });
    expect(t2.end_to_end_id).toBe(g.end_to_end_ids[1]);
    expect(p.payment_infos[0].debtor).toMatchObject({ name: debtor.name, account: { iban: IBAN_DE }, agent: { bic: 'COBADEFFXXX' } });
    expect(p.payment_infos[0].debtor.postal_address).toMatchObject({ town_name: 'Berlin', country: 'DE' });
    expect(p.payment_infos[0].requested_execution_date).toBe('2099-01-02');
    expect(p.payment_infos[1].transactions[0]).toMatchObject({ amount: '10000', currency: 'JPY', purpose: 'SUPP' });
  },
  'pacs.008': (p, g) => {
    expect(p.group_header).toMatchObject({ message_id: 'PACS-RT-1', number_of_transactions: '2', control_sum: '98501.50', interbank_settlement_date: '2099-01-02' });
    expect(p.group_header.total_interbank_settlement_amount).toEqual({ amount: '98501.50', currency: 'USD' });
    expect(p.transactions[0]).toMatchObject({ end_to_end_id: 'E2E-A', amount: '98500.00', currency: 'USD', charge_bearer: 'SLEV' });
    expect(p.transactions[0].transaction_id).toBe(g.transaction_ids[0]);
    expect(p.transactions[0].debtor).toMatchObject({ name: debtor.name, account: { iban: IBAN_DE }, agent: { bic: 'COBADEFFXXX' } });
    expect(p.transactions[1].creditor.agent).toEqual({ clearing_member_id: '021000021', clearing_system_code: 'USABA' });
    expect(p.transactions[0].remittance_information.unstructured).toEqual(['Inv 55']);
  },
  'pacs.002': (p) => {
    expect(p.original_groups[0]).toMatchObject({ original_message_id: 'PACS-RT-1', original_message_name_id: 'pacs.008.001.08' });
    expect(p.transactions[0]).toMatchObject({ original_end_to_end_id: 'E2E-A', status: 'RJCT' });
    expect(p.transactions[0].reasons).toEqual([{ code: 'AC04', additional_information: ['Account closed'] }]);
  },
  'pain.002': (p) => {
    expect(p.original_group_information).toMatchObject({ original_message_id: 'PAIN-RT-1', group_status: 'PART' });
    expect(p.original_payment_infos).toHaveLength(2);
    expect(p.original_payment_infos[0].transactions[0]).toMatchObject({
      original_end_to_end_id: 'E2E-1', status: 'RJCT', amount: '1250.50', currency: 'EUR', reasons: [{ code: 'AM04' }],
    });
    expect(p.original_payment_infos[1]).toMatchObject({ original_payment_information_id: 'PI-2', status: 'ACCP' });
  },
  'camt.053': (p) => {
    const s = p.statements[0];
    expect(p.group_header.message_id).toBe('STMT-RT-1');
    expect(s.id).toBe('STMT-RT-1-1');
    expect(s.account).toMatchObject({ iban: IBAN_DE, currency: 'EUR', owner: { name: 'Muster Handels GmbH' }, servicer: { bic: 'COBADEFFXXX' } });
    expect(s.balances).toEqual([
      { type: 'OPBD', amount: '1000.00', currency: 'EUR', credit_debit: 'CRDT', date: '2024-01-01' },
      { type: 'CLBD', amount: '1150.25', currency: 'EUR', credit_debit: 'CRDT', date: '2024-01-31' },
    ]);
    expect(s.entries).toHaveLength(2);
    expect(s.entries[0]).toMatchObject({ amount: '200.25', credit_debit: 'CRDT', status: 'BOOK', booking_date: '2024-01-10', entry_reference: 'N1' });
    expect(s.entries[0].details[0]).toMatchObject({ end_to_end_id: 'E2E-IN', amount: '200.25', currency: 'EUR' });
    expect(s.entries[0].details[0].debtor).toMatchObject({ name: 'Dupont et Fils SA', account: { iban: IBAN_FR }, agent: { bic: 'BNPAFRPPXXX' } });
    expect(s.entries[1].bank_transaction_code).toEqual({ domain_code: 'PMNT', family_code: 'CCRD', sub_family_code: 'POSD' });
    expect(s.transaction_summary).toMatchObject({ number_of_entries: '2', sum: '250.25', net_amount: '150.25', net_credit_debit: 'CRDT' });
    expect(s.from_date_time).toBe('2024-01-01T00:00:00Z');
  },
  'camt.054': (p) => {
    const n = p.notifications[0];
    expect(n.entries[0]).toMatchObject({ amount: '75.10', currency: 'EUR', credit_debit: 'CRDT' });
    expect(n.entries[0].details[0]).toMatchObject({ end_to_end_id: 'E2E-N', creditor: { name: 'Muster Handels GmbH' } });
    expect(n.balances).toBeUndefined();
  },
  'camt.056': (p, g) => {
    expect(p.group_header.message_id).toBe('CXL-RT-1');
    expect(p.assignment.assigner).toEqual({ financial_institution: { bic: 'COBADEFFXXX' } });
    expect(p.control_data).toEqual({ number_of_transactions: '1', control_sum: '98500.00' });
    const tx = p.underlying[0].transactions[0];
    expect(tx).toMatchObject({ original_message_id: 'PACS-RT-1', original_end_to_end_id: 'E2E-A', amount: '98500.00', currency: 'USD' });
    expect(tx.reasons).toEqual([{ code: 'DUPL' }]);
    expect(tx.cancellation_id).toBe(g.cancellation_ids[0]);
    expect(tx.debtor).toEqual({ name: 'Muster Handels GmbH' });
  },
  'admi.002': (p) => {
    expect(p.related_reference).toBe('PACS-RT-1');
    expect(p.reason).toMatchObject({ rejecting_party_reason: 'X020', description: 'Schema validation failed' });
  },
};

/** Fields newer versions carry and older ones do not. */
const UETR_TYPES = new Set(['pacs.008', 'pain.001']);

describe('generate → validate → parse round trips', () => {
  for (const type of Object.keys(SAMPLES) as SampleType[]) {
    it(`${type} in its default version ${DEFAULTS[type]}`, () => {
      const { generated, parsed } = roundTrip({ ...SAMPLES[type] });
      expect(generated.version).toBe(DEFAULTS[type]);
      expect(parsed.message_type).toBe(type);
      CHECKS[type](parsed, generated);
      if (UETR_TYPES.has(type)) {
        const uetrs: string[] = (generated as any).uetrs;
        expect(uetrs.length).toBeGreaterThan(0);
        for (const u of uetrs) expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      }
    });

    for (const version of versionsOf(type).filter((v) => v !== DEFAULTS[type])) {
      it(`${type} in ${version}`, () => {
        const input: Record<string, any> = { ...SAMPLES[type], version };
        // LEI in party identification exists only from the 2019 versions.
        if (version.endsWith('.001.02') || version.endsWith('.001.03') || version.endsWith('.001.01')) {
          input.debtor &&= { ...input.debtor, identifiers: undefined };
          if (input.payment_infos) input.payment_infos = input.payment_infos.map((pi: any) => ({ ...pi, debtor: { ...pi.debtor, identifiers: undefined } }));
          if (input.transactions) input.transactions = input.transactions.map((t: any) => ({ ...t, debtor: { ...t.debtor, identifiers: undefined } }));
          delete input.original_uetr;
        }
        const { generated, parsed } = roundTrip(input);
        expect(generated.version).toBe(version);
        CHECKS[type](parsed, generated);
      });
    }
  }

  it('wraps the message with a head.001 AppHdr when asked', () => {
    const { generated, parsed } = roundTrip({ ...SAMPLES['pacs.008'], business_application_header: true });
    expect(generated.xml).toMatch(/^<\?xml[^>]*>\n<Envelope>\n<AppHdr xmlns="urn:iso:std:iso:20022:tech:xsd:head.001.001.02">/);
    expect(generated.business_application_header).toEqual({ version: 'head.001.001.02', business_message_id: 'PACS-RT-1' });
    expect(parsed.business_application_header).toMatchObject({
      version: 'head.001.001.02',
      from: { financial_institution: { bic: 'COBADEFFXXX' } },
      to: { financial_institution: { bic: 'BNPAFRPPXXX' } },
      business_message_id: 'PACS-RT-1',
      message_definition_id: 'pacs.008.001.08',
    });
  });

  it('takes AppHdr parties and version from the caller', () => {
    const { generated, parsed } = roundTrip({
      ...SAMPLES['pain.001'],
      business_application_header: { version: 'head.001.001.03', from: { name: 'Muster Handels GmbH' }, to: { bic: 'COBADEFFXXX' }, business_service: 'corp.payments' },
    });
    expect(generated.business_application_header?.version).toBe('head.001.001.03');
    expect(parsed.business_application_header).toMatchObject({ from: { name: 'Muster Handels GmbH' }, to: { financial_institution: { bic: 'COBADEFFXXX' } }, business_service: 'corp.payments' });
  });
});
