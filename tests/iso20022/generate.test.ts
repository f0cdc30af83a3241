import { describe, expect, it } from 'vitest';
import { apiError } from './refusal';
import { generateMessage, parseMessage, supportedTypes, validateMessage } from '../../iso20022/index';
import { creditor, debtor, IBAN_DE, SAMPLES } from './fixtures/samples';


const transfer = (amount: unknown, currency: unknown, extra: Record<string, unknown> = {}) =>
  generateMessage({ type: 'pacs.008', amount, currency, debtor, creditor, ...extra });

describe('generation', () => {
  it('formats amounts with the currency decimals (ISO 4217)', () => {
    const cases: Array<[string, string, string]> = [
      ['1000', 'JPY', '1000'],
      ['5', 'USD', '5.00'],
      ['1.5', 'BHD', '1.500'],
      ['0.1', 'EUR', '0.10'],
      ['12.3400', 'KWD', '12.340'],
      ['123456789012345.67', 'EUR', '123456789012345.67'],
    ];
    for (const [amount, ccy, expected] of cases) {
      const { xml } = transfer(amount, ccy);
      expect(xml).toContain(`<IntrBkSttlmAmt Ccy="${ccy}">${expected}</IntrBkSttlmAmt>`);
    }
  });

  it('refuses amounts that are not decimal strings or need more decimals than the currency has', () => {
    expect(apiError(() => transfer(10.5, 'EUR'))).toMatchObject({ status: 422, code: 'INVALID_AMOUNT', source: { pointer: '/amount' } });
    expect(apiError(() => transfer('1.005', 'USD'))).toMatchObject({ status: 422, code: 'INVALID_AMOUNT' });
    expect(apiError(() => transfer('100.5', 'JPY')).detail).toMatch(/JPY amounts have 0 decimal/);
    expect(apiError(() => transfer('-5', 'EUR')).code).toBe('INVALID_AMOUNT');
    expect(apiError(() => transfer('1e3', 'EUR')).code).toBe('INVALID_AMOUNT');
    expect(apiError(() => transfer('5', 'EURO'))).toMatchObject({ code: 'INVALID_CURRENCY', source: { pointer: '/currency' } });
    expect(apiError(() => transfer('5', 'ABC')).code).toBe('INVALID_CURRENCY');
  });

  it('sums control totals exactly in decimal', () => {
    const g = generateMessage({
      type: 'pain.001',
      debtor,
      transactions: [
        { amount: '0.1', currency: 'EUR', creditor },
        { amount: '0.2', currency: 'EUR', creditor },
      ],
    });
    expect(g.control_sum).toBe('0.30');
    expect(g.xml).toContain('<CtrlSum>0.30</CtrlSum>');
  });

  it('generates unique identifiers and UETRs (UUIDv4) where the schema has them', () => {
    const a = transfer('1', 'EUR') as any;
    const b = transfer('1', 'EUR') as any;
    expect(a.message_id).not.toBe(b.message_id);
    expect(a.message_id).toMatch(/^[0-9a-f]{32}$/);
    expect(a.end_to_end_ids[0]).not.toBe(b.end_to_end_ids[0]);
    expect(a.uetrs[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.xml).toContain(`<UETR>${a.uetrs[0]}</UETR>`);
    const old = transfer('1', 'EUR', { version: 'pacs.008.001.02', debtor: { ...debtor, identifiers: undefined } }) as any;
    expect(old.uetrs).toEqual([]);
    expect(old.xml).not.toContain('<UETR>');
    expect(old.xml).toContain('<BIC>COBADEFFXXX</BIC>');
  });

  it('keeps given identifiers', () => {
    const g = transfer('1', 'EUR', { message_id: 'MY-MSG', end_to_end_id: 'MY-E2E', uetr: '11111111-2222-4333-8444-555555555555' }) as any;
    expect(g).toMatchObject({ message_id: 'MY-MSG', end_to_end_ids: ['MY-E2E'], uetrs: ['11111111-2222-4333-8444-555555555555'] });
  });

  it('accepts a full version in type, and refuses unknown types and versions', () => {
    expect(generateMessage({ ...SAMPLES['admi.002'], type: 'admi.002.001.01' }).version).toBe('admi.002.001.01');
    expect(apiError(() => generateMessage({ type: 'camt.052' }))).toMatchObject({ status: 422, code: 'UNSUPPORTED_MESSAGE_TYPE', source: { pointer: '/type' } });
    expect(apiError(() => generateMessage({ ...SAMPLES['pacs.008'], version: 'pacs.008.001.05' }))).toMatchObject({ code: 'UNSUPPORTED_VERSION', source: { pointer: '/version' } });
    expect(apiError(() => generateMessage({ amount: '1' }))).toMatchObject({ code: 'VALIDATION_ERROR', source: { pointer: '/type' } });
    expect(apiError(() => generateMessage([]))).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('reports fields the chosen version does not have', () => {
    const err = apiError(() =>
      generateMessage({ ...SAMPLES['pain.001'], version: 'pain.001.001.03', initiating_party: { name: 'X', postal_address: { building_name: 'Tower' } } }),
    );
    expect(err).toMatchObject({ status: 422, code: 'FIELD_NOT_IN_SCHEMA' });
    expect(err.detail).toMatch(/BldgNm.*pain\.001\.001\.03/);
  });

  it('never returns a message that fails its own validation', () => {
    const badIban = apiError(() => transfer('1', 'EUR', { creditor: { ...creditor, account: { iban: 'FR7630006000011234567890188' } } }));
    expect(badIban).toMatchObject({ status: 422, code: 'GENERATED_MESSAGE_INVALID' });
    expect(badIban.detail).toMatch(/CdtrAcct\/Id\/IBAN.*check digits/);
    const longName = apiError(() => transfer('1', 'EUR', { debtor: { ...debtor, name: 'N'.repeat(141) } }));
    expect(longName.code).toBe('GENERATED_MESSAGE_INVALID');
    expect(longName.detail).toMatch(/Dbtr\/Nm.*maxLength/);
    const badStatus = apiError(() => generateMessage({ ...SAMPLES['pacs.002'], version: 'pacs.002.001.03', original_uetr: undefined, status: 'XXXX', reason_code: 'AC01' }));
    expect(badStatus.code).toBe('GENERATED_MESSAGE_INVALID');
  });

  it('requires the business fields each type needs', () => {
    expect(apiError(() => generateMessage({ type: 'pacs.008', amount: '1', currency: 'EUR', debtor, creditor: { name: 'x', account: { iban: IBAN_DE } } })).source).toEqual({ pointer: '/creditor/agent' });
    expect(apiError(() => generateMessage({ type: 'pain.001', amount: '1', currency: 'EUR', creditor })).source).toEqual({ pointer: '/debtor' });
    expect(apiError(() => generateMessage({ type: 'pacs.002', original_end_to_end_id: 'E', status: 'ACSC' })).source).toEqual({ pointer: '/original_message_id' });
    expect(apiError(() => generateMessage({ type: 'pacs.002', original_message_id: 'M', original_end_to_end_id: 'E', status: 'RJCT' })).source).toEqual({ pointer: '/reason_code' });
    expect(apiError(() => generateMessage({ ...SAMPLES['camt.056'], reason_code: undefined })).source).toEqual({ pointer: '/reason_code' });
    expect(apiError(() => generateMessage({ type: 'admi.002', related_reference: 'X' })).source).toEqual({ pointer: '/reason' });
    expect(apiError(() => generateMessage({ ...SAMPLES['camt.053'], balances: [] })).source).toEqual({ pointer: '/balances' });
    expect(apiError(() => generateMessage({ ...SAMPLES['camt.054'], balances: [{ type: 'CLBD', amount: '1', credit_debit: 'CRDT', date: '2024-01-01' }] })).source).toEqual({ pointer: '/balances' });
    expect(apiError(() => generateMessage({ ...SAMPLES['camt.053'], entries: [{ amount: '1', credit_debit: 'CREDIT' }] })).source).toEqual({ pointer: '/entries/0/credit_debit' });
  });

  it('pacs.008 with several currencies has no group total amount', () => {
    const g = generateMessage({
      type: 'pacs.008',
      transactions: [
        { amount: '1', currency: 'EUR', debtor, creditor },
        { amount: '2', currency: 'USD', debtor, creditor },
      ],
    });
    expect(g.xml).not.toContain('TtlIntrBkSttlmAmt');
    expect(validateMessage(g.xml).valid).toBe(true);
  });

  it('pacs.002 and pain.002 shorthands place status and reason at the right level', () => {
    const group = parseMessage(generateMessage({ type: 'pacs.002', original_message_id: 'M', status: 'RJCT', reason_code: 'FF01' }).xml) as any;
    expect(group.original_groups[0]).toMatchObject({ group_status: 'RJCT', reasons: [{ code: 'FF01' }] });
    expect(group.transactions).toEqual([]);
    const pi = parseMessage(generateMessage({ type: 'pain.002', original_message_id: 'M', original_payment_information_id: 'P', status: 'RJCT', reason_code: 'AC01' }).xml) as any;
    expect(pi.original_payment_infos[0]).toMatchObject({ status: 'RJCT', reasons: [{ code: 'AC01' }], transactions: [] });
    expect(pi.original_group_information.reasons).toBeUndefined();
    const tx = parseMessage(generateMessage({ type: 'pain.002', original_message_id: 'M', original_payment_information_id: 'P', original_end_to_end_id: 'E', status: 'ACCP' }).xml) as any;
    expect(tx.original_payment_infos[0].status).toBeUndefined();
    expect(tx.original_payment_infos[0].transactions[0]).toMatchObject({ original_end_to_end_id: 'E', status: 'ACCP' });
  });

  it('AppHdr needs a sender and receiver it can name', () => {
    expect(apiError(() => generateMessage({ ...SAMPLES['admi.002'], business_application_header: true })).source).toEqual({ pointer: '/business_application_header/from' });
    const g = generateMessage({ ...SAMPLES['admi.002'], business_application_header: { from: { bic: 'COBADEFFXXX' }, to: { bic: 'BNPAFRPPXXX' } } });
    expect(validateMessage(g.xml).schemas).toEqual({ document: 'admi.002.001.01', business_application_header: 'head.001.001.02' });
  });

  it('supportedTypes lists every schema version for parse, generate and validate', () => {
    const s = supportedTypes();
    expect(s.message_types.map((t) => t.type).sort()).toEqual(['admi.002', 'camt.053', 'camt.054', 'camt.056', 'pacs.002', 'pacs.008', 'pain.001', 'pain.002']);
    const pain = s.message_types.find((t) => t.type === 'pain.001')!;
    expect(pain.parse).toEqual(['pain.001.001.03', 'pain.001.001.09', 'pain.001.001.10', 'pain.001.001.11']);
    expect(pain.generate).toEqual(pain.parse);
    expect(pain.default_version).toBe('pain.001.001.09');
    expect(s.business_application_header.generate).toEqual(['head.001.001.02', 'head.001.001.03']);
  });
});
