import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { abaCheckDigit, buildNachaFile, buildReturnFile, parseNachaFile, type NachaFileInput } from '../../domain/ach/nacha';

// Independent parser from npm (@ach/ach), not our writer's code.
const ach = createRequire(import.meta.url)('@ach/ach') as () => { getParser(f: string): NodeJS.ReadWriteStream };

function parseWithAchLib(content: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const parser = ach().getParser('ach');
    parser.on('data', resolve);
    parser.on('error', reject);
    // Its line splitter recurses per line within a chunk, so feed it one record per chunk.
    Readable.from(content.split('\n').filter(Boolean).map((l) => `${l}\n`)).pipe(parser);
  });
}

const routing = (first8: string) => first8 + abaCheckDigit(first8);

function sampleFile(): NachaFileInput {
  return {
    immediate_destination: '011000015',
    immediate_destination_name: 'FEDERAL RESERVE BANK',
    immediate_origin: '123456780',
    immediate_origin_name: 'SANDBOX BANK',
    odfi_id: '12345678',
    file_id_modifier: 'A',
    created_at: new Date('2026-11-24T14:05:00Z'),
    batches: [
      {
        sec_code: 'PPD',
        company_name: 'SANDBOX BANK',
        company_id: '1123456780',
        entry_description: 'PAYROLL',
        effective_date: '2026-11-25',
        entries: [
          { transaction_code: '22', routing_number: '021000021', account_number: '12345678901', amount: '1500.25', name: 'Alice Smith', individual_id: 'EMP001', addenda: 'November salary' },
          { transaction_code: '32', routing_number: '011000015', account_number: '555', amount: '0.01', name: 'Bob Jones' },
        ],
      },
      {
        sec_code: 'CCD',
        company_name: 'SANDBOX BANK',
        company_id: '1123456780',
        entry_description: 'VENDORPAY',
        effective_date: '2026-11-26',
        entries: [{ transaction_code: '27', routing_number: '091000019', account_number: '999888777', amount: '99999999.99', name: 'Acme Corp' }],
      },
    ],
  };
}

describe('NACHA writer, checked by an independent parser', () => {
  it('writes headers, batches, entries with check digits and traces, addenda, controls, 94-char records and blocking', async () => {
    const { content, summary } = buildNachaFile(sampleFile());
    const lines = content.split('\n').filter(Boolean);
    expect(lines.every((l) => l.length === 94)).toBe(true);
    expect(lines.length % 10).toBe(0);
    // 1 header + 2 batch headers + 3 entries + 1 addenda + 2 controls + 1 file control = 10 records, no filler.
    expect(lines.length).toBe(10);

    const parsed = await parseWithAchLib(content);
    expect(parsed.file.priority).toBe(1);
    expect(parsed.file.destination).toBe(' 011000015');
    expect(parsed.file.origin).toBe(' 123456780');
    expect(parsed.batches).toHaveLength(2);
    const [ppd, ccd] = parsed.batches;
    expect(ppd.entryClassCode).toBe('PPD');
    expect(ccd.entryClassCode).toBe('CCD');
    expect(ppd.serviceClassCode).toBe(220); // credits only
    expect(ccd.serviceClassCode).toBe(225); // debits only
    expect(ppd.entries).toHaveLength(2);
    expect(ppd.entries[0].addenda).toBeDefined();

    // Every total recomputed from the parsed entries (amounts are integer cents in the format).
    let fileHash = 0;
    let debit = 0;
    let credit = 0;
    for (const b of parsed.batches) {
      let hash = 0;
      let bd = 0;
      let bc = 0;
      for (const e of b.entries) {
        const line = lines.find((l) => l.startsWith('6') && l.slice(79, 94) === String(e.traceNumber).padStart(15, '0'))!;
        const rdfi = line.slice(3, 11);
        expect(abaCheckDigit(rdfi)).toBe(line[11]);
        hash += parseInt(rdfi, 10);
        const cents = parseInt(line.slice(29, 39), 10);
        if (['22', '32'].includes(line.slice(1, 3))) bc += cents;
        else bd += cents;
      }
      expect(b.footer.entryHash).toBe(hash % 1e10);
      expect(b.footer.totalDebit).toBe(bd);
      expect(b.footer.totalCredit).toBe(bc);
      expect(b.footer.entryAndAddendaCount).toBe(b.entries.length + b.entries.filter((e: any) => e.addenda).length);
      fileHash += hash;
      debit += bd;
      credit += bc;
    }
    expect(parsed.file.footer.batchCount).toBe(2);
    expect(parsed.file.footer.blockCount).toBe(1);
    expect(parsed.file.footer.entryAndAddendaCount).toBe(4);
    expect(parsed.file.footer.entryHash).toBe(fileHash % 1e10);
    expect(parsed.file.footer.totalDebit).toBe(debit);
    expect(parsed.file.footer.totalCredit).toBe(credit);
    expect(summary).toMatchObject({ total_credit: '1500.26', total_debit: '99999999.99', entry_addenda_count: 4, batch_count: 2 });
    expect(summary.trace_numbers).toEqual(['123456780000001', '123456780000002', '123456780000003']);
  });

  it('pads with 9s to a multiple of 10 records and refuses bad routing numbers and over-precise amounts', () => {
    const f = sampleFile();
    f.batches = [f.batches[1]];
    const { content, summary } = buildNachaFile(f);
    const lines = content.split('\n').filter(Boolean);
    expect(lines).toHaveLength(10);
    expect(lines.slice(5).every((l) => l === '9'.repeat(94))).toBe(true);
    expect(summary.record_count).toBe(10);
    f.batches[0].entries[0].routing_number = '091000018';
    expect(() => buildNachaFile(f)).toThrow(/check digit/);
    f.batches[0].entries[0].routing_number = '091000019';
    f.batches[0].entries[0].amount = '1.001';
    expect(() => buildNachaFile(f)).toThrow(/2 places/);
  });

  it('builds 10,000 entries in under 2 seconds, and the independent parser agrees on the totals', async () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => ({
      transaction_code: '22' as const,
      routing_number: routing(String(10000000 + i * 7919).slice(0, 8)),
      account_number: String(1000000 + i),
      amount: `${(i % 5000) + 1}.${String(i % 100).padStart(2, '0')}`,
      name: `Payee ${i}`,
    }));
    const t0 = performance.now();
    const { content, summary } = buildNachaFile({ ...sampleFile(), batches: [{ ...sampleFile().batches[0], entries }] });
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(2000);
    const parsed = await parseWithAchLib(content);
    expect(parsed.batches[0].entries).toHaveLength(10_000);
    const sum = parsed.batches[0].entries.reduce((s: number, e: any) => s + e.amount, 0);
    expect(parsed.file.footer.totalCredit).toBe(sum);
    expect(summary.entry_count).toBe(10_000);
    expect(content.split('\n').filter(Boolean).length % 10).toBe(0);
  });

  it('return files carry addenda 99 with reason and original trace, and parse back', () => {
    const { content } = buildNachaFile(sampleFile());
    const original = parseNachaFile(content).batches[0].entries[0];
    const ret = buildReturnFile({ rdfi_routing: '021000021', odfi_id: '12345678', odfi_name: 'SANDBOX BANK', created_at: new Date('2026-11-27T12:00:00Z'), effective_date: '2026-11-27', returns: [{ original, reason_code: 'R01', information: 'NSF' }] });
    expect(ret.split('\n').filter(Boolean).every((l) => l.length === 94)).toBe(true);
    const back = parseNachaFile(ret);
    const e = back.batches[0].entries[0];
    expect(e.transaction_code).toBe('21');
    expect(e.amount).toBe('1500.25');
    expect(e.addenda[0]).toMatchObject({ type: '99', return_reason_code: 'R01', original_trace_number: original.trace_number, original_rdfi: '02100002' });
    expect(() => parseNachaFile('1' + ' '.repeat(50))).toThrow(/94/);
  });
});
