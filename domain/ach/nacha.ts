/**
 * NACHA file format (94-character records, blocking factor 10): writer for PPD/CCD credit and
 * debit batches with addenda, a parser (used for return files), and return entries (addenda 99).
 * Amounts go from decimal strings to integer cents by string arithmetic (BigInt), never floats.
 */
import { DomainError } from '../platform/errors';

export type SecCode = 'PPD' | 'CCD';
/** 22/32 credit checking/savings, 27/37 debit checking/savings. */
export type TransactionCode = '22' | '27' | '32' | '37';
export const CREDIT_CODES = new Set(['21', '22', '23', '24', '31', '32', '33', '34']);

export interface NachaEntryInput {
  transaction_code: TransactionCode;
  routing_number: string;
  account_number: string;
  amount: string;
  name: string;
  individual_id?: string;
  addenda?: string;
  trace_number?: string;
}

export interface NachaBatchInput {
  sec_code: SecCode;
  company_name: string;
  company_id: string;
  entry_description: string;
  /** YYYY-MM-DD */
  effective_date: string;
  discretionary_data?: string;
  entries: NachaEntryInput[];
}

export interface NachaFileInput {
  immediate_destination: string;
  immediate_destination_name: string;
  immediate_origin: string;
  immediate_origin_name: string;
  /** First 8 digits of the originating bank's routing number. */
  odfi_id: string;
  file_id_modifier?: string;
  created_at: Date;
  reference_code?: string;
  batches: NachaBatchInput[];
}

export interface NachaSummary {
  batch_count: number;
  block_count: number;
  entry_count: number;
  entry_addenda_count: number;
  entry_hash: string;
  total_debit: string;
  total_credit: string;
  record_count: number;
  batches: Array<{ batch_number: number; sec_code: string; effective_date: string; entry_count: number; entry_hash: string; total_debit: string; total_credit: string }>;
  trace_numbers: string[];
}

export const RECORD_LENGTH = 94;
export const BLOCKING_FACTOR = 10;

const ALNUM = (v: string, n: number) => sanitize(v).slice(0, n).padEnd(n, ' ');
const NUM = (v: string | number | bigint, n: number) => {
  const s = String(v);
  if (!/^\d*$/.test(s) || s.length > n) throw new Error(`numeric field overflow: ${s} in ${n}`);
  return s.padStart(n, '0');
};
/** NACHA allows uppercase letters, digits and a few symbols; anything else becomes a space. */
function sanitize(v: string): string {
  return v.toUpperCase().replace(/[^A-Z0-9 .,&/()'\-*#@!?:;+=$%"]/g, ' ');
}

/** ABA check digit over the first 8 digits (weights 3, 7, 1). */
export function abaCheckDigit(first8: string): string {
  const w = [3, 7, 1, 3, 7, 1, 3, 7];
  let s = 0;
  for (let i = 0; i < 8; i++) s += parseInt(first8[i], 10) * w[i];
  return String((10 - (s % 10)) % 10);
}

export function isValidRoutingNumber(rn: string): boolean {
  return /^\d{9}$/.test(rn) && abaCheckDigit(rn.slice(0, 8)) === rn[8];
}

/** "12.34" -> 1234n; refuses more than 2 decimals or more than 10 digits of cents. */
export function toCents(amount: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(amount);
  if (!m) throw new DomainError('INVALID_AMOUNT', `ACH amount ${amount} must be a decimal with at most 2 places`);
  const cents = BigInt(m[1]) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
  if (cents <= 0n) throw new DomainError('AMOUNT_NOT_POSITIVE', 'ACH amount must be positive');
  if (cents > 9_999_999_999n) throw new DomainError('AMOUNT_TOO_LARGE', 'ACH amount exceeds the 10-digit NACHA amount field');
  return cents;
}

export function centsToDecimal(c: bigint): string {
  const s = c.toString().padStart(3, '0');
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
}

const yymmdd = (date: string) => date.slice(2, 4) + date.slice(5, 7) + date.slice(8, 10);

function assertLen(r: string): string {
  if (r.length !== RECORD_LENGTH) throw new Error(`NACHA record of ${r.length} characters: ${r}`);
  return r;
}

/** Entry hash: sum of the 8-digit receiving DFI ids, rightmost 10 digits. */
function hash10(sum: bigint): string {
  return NUM((sum % 10_000_000_000n).toString(), 10);
}

/** Builds the file; returns the text (records joined by \n, with a final \n) and its totals. */
export function buildNachaFile(input: NachaFileInput): { content: string; summary: NachaSummary } {
  if (!/^\d{8}$/.test(input.odfi_id)) throw new DomainError('VALIDATION_ERROR', 'odfi_id must be 8 digits');
  const records: string[] = [];
  const utc = input.created_at.toISOString();
  const fileDate = utc.slice(2, 4) + utc.slice(5, 7) + utc.slice(8, 10);
  const fileTime = utc.slice(11, 13) + utc.slice(14, 16);
  const dest = input.immediate_destination.length === 9 ? ` ${input.immediate_destination}` : input.immediate_destination.padStart(10, ' ');
  const orig = input.immediate_origin.length === 9 ? ` ${input.immediate_origin}` : input.immediate_origin.padStart(10, ' ');
  records.push(
    assertLen(
      '1' + '01' + dest + orig + fileDate + fileTime + (input.file_id_modifier ?? 'A') + '094' + '10' + '1' +
        ALNUM(input.immediate_destination_name, 23) + ALNUM(input.immediate_origin_name, 23) + ALNUM(input.reference_code ?? '', 8),
    ),
  );
  let fileHash = 0n;
  let fileDebit = 0n;
  let fileCredit = 0n;
  let fileEntryAddenda = 0;
  let fileEntries = 0;
  let traceSeq = 0;
  const traceNumbers: string[] = [];
  const batches: NachaSummary['batches'] = [];
  input.batches.forEach((b, bi) => {
    const batchNumber = bi + 1;
    let debit = 0n;
    let credit = 0n;
    let hash = 0n;
    let count = 0;
    const body: string[] = [];
    for (const e of b.entries) {
      if (!isValidRoutingNumber(e.routing_number)) {
        throw new DomainError('INVALID_ROUTING_NUMBER', `routing number ${e.routing_number} fails the ABA check digit`);
      }
      const cents = toCents(e.amount);
      if (CREDIT_CODES.has(e.transaction_code)) credit += cents;
      else debit += cents;
      const rdfi = e.routing_number.slice(0, 8);
      hash += BigInt(rdfi);
      const trace = e.trace_number ?? input.odfi_id + NUM(++traceSeq, 7);
      traceNumbers.push(trace);
      body.push(
        assertLen(
          '6' + e.transaction_code + rdfi + e.routing_number[8] + ALNUM(e.account_number, 17) + NUM(cents, 10) +
            ALNUM(e.individual_id ?? '', 15) + ALNUM(e.name, 22) + '  ' + (e.addenda ? '1' : '0') + NUM(trace, 15),
        ),
      );
      count++;
      if (e.addenda) {
        body.push(assertLen('7' + '05' + ALNUM(e.addenda, 80) + '0001' + trace.slice(-7)));
        count++;
      }
    }
    const scc = debit > 0n && credit > 0n ? '200' : credit > 0n ? '220' : '225';
    records.push(
      assertLen(
        '5' + scc + ALNUM(b.company_name, 16) + ALNUM(b.discretionary_data ?? '', 20) + ALNUM(b.company_id, 10) + b.sec_code +
          ALNUM(b.entry_description, 10) + ALNUM('', 6) + yymmdd(b.effective_date) + '   ' + '1' + input.odfi_id + NUM(batchNumber, 7),
      ),
    );
    records.push(...body);
    records.push(
      assertLen(
        '8' + scc + NUM(count, 6) + hash10(hash) + NUM(debit, 12) + NUM(credit, 12) + ALNUM(b.company_id, 10) + ' '.repeat(19) + ' '.repeat(6) +
          input.odfi_id + NUM(batchNumber, 7),
      ),
    );
    batches.push({
      batch_number: batchNumber,
      sec_code: b.sec_code,
      effective_date: b.effective_date,
      entry_count: b.entries.length,
      entry_hash: hash10(hash),
      total_debit: centsToDecimal(debit),
      total_credit: centsToDecimal(credit),
    });
    fileHash += hash;
    fileDebit += debit;
    fileCredit += credit;
    fileEntryAddenda += count;
    fileEntries += b.entries.length;
  });
  const recordCount = records.length + 1;
  const blocks = Math.ceil(recordCount / BLOCKING_FACTOR);
  records.push(
    assertLen(
      '9' + NUM(input.batches.length, 6) + NUM(blocks, 6) + NUM(fileEntryAddenda, 8) + hash10(fileHash) + NUM(fileDebit, 12) + NUM(fileCredit, 12) + ' '.repeat(39),
    ),
  );
  const filler = '9'.repeat(RECORD_LENGTH);
  while (records.length % BLOCKING_FACTOR !== 0) records.push(filler);
  return {
    content: records.join('\n') + '\n',
    summary: {
      batch_count: input.batches.length,
      block_count: blocks,
      entry_count: fileEntries,
      entry_addenda_count: fileEntryAddenda,
      entry_hash: hash10(fileHash),
      total_debit: centsToDecimal(fileDebit),
      total_credit: centsToDecimal(fileCredit),
      record_count: records.length,
      batches,
      trace_numbers: traceNumbers,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Parsing (return files from the ACH operator)
// ---------------------------------------------------------------------------------------------

export interface ParsedEntry {
  transaction_code: string;
  routing_number: string;
  account_number: string;
  amount: string;
  individual_id: string;
  name: string;
  trace_number: string;
  addenda: Array<{ type: string; raw: string; return_reason_code?: string; original_trace_number?: string; original_rdfi?: string; information?: string }>;
}

export interface ParsedNachaFile {
  immediate_destination: string;
  immediate_origin: string;
  batches: Array<{ service_class_code: string; company_name: string; company_id: string; sec_code: string; effective_date: string; entries: ParsedEntry[] }>;
}

const bad = (detail: string) => new DomainError('INVALID_NACHA_FILE', detail, '');

/** Parses a NACHA file (LF, CRLF or unbroken 94-character records); checks record lengths and controls. */
export function parseNachaFile(text: string): ParsedNachaFile {
  const clean = text.replace(/\r/g, '');
  const lines = clean.includes('\n') ? clean.split('\n').filter((l) => l.length > 0) : clean.match(/.{1,94}/g) ?? [];
  if (lines.length === 0) throw bad('empty file');
  lines.forEach((l, i) => {
    if (l.length !== RECORD_LENGTH) throw bad(`record ${i + 1} has ${l.length} characters, not 94`);
  });
  if (lines[0][0] !== '1') throw bad('the first record must be a file header (1)');
  const file: ParsedNachaFile = { immediate_destination: lines[0].slice(3, 13).trim(), immediate_origin: lines[0].slice(13, 23).trim(), batches: [] };
  let batch: ParsedNachaFile['batches'][number] | undefined;
  let entry: ParsedEntry | undefined;
  let hash = 0n;
  let sawControl = false;
  for (const [i, l] of lines.entries()) {
    const type = l[0];
    if (type === '5') {
      batch = { service_class_code: l.slice(1, 4), company_name: l.slice(4, 20).trim(), company_id: l.slice(40, 50).trim(), sec_code: l.slice(50, 53), effective_date: `20${l.slice(69, 71)}-${l.slice(71, 73)}-${l.slice(73, 75)}`, entries: [] };
      file.batches.push(batch);
      hash = 0n;
    } else if (type === '6') {
      if (!batch) throw bad(`entry at record ${i + 1} outside a batch`);
      const cents = BigInt(l.slice(29, 39));
      entry = {
        transaction_code: l.slice(1, 3),
        routing_number: l.slice(3, 12),
        account_number: l.slice(12, 29).trim(),
        amount: centsToDecimal(cents),
        individual_id: l.slice(39, 54).trim(),
        name: l.slice(54, 76).trim(),
        trace_number: l.slice(79, 94),
        addenda: [],
      };
      hash += BigInt(l.slice(3, 11));
      batch.entries.push(entry);
    } else if (type === '7') {
      if (!entry) throw bad(`addenda at record ${i + 1} without an entry`);
      const at = l.slice(1, 3);
      entry.addenda.push(
        at === '99'
          ? { type: at, raw: l, return_reason_code: l.slice(3, 6), original_trace_number: l.slice(6, 21), original_rdfi: l.slice(27, 35), information: l.slice(35, 79).trim() }
          : { type: at, raw: l, information: l.slice(3, 83).trim() },
      );
    } else if (type === '8') {
      if (!batch) throw bad(`batch control at record ${i + 1} without a batch`);
      if (l.slice(10, 20) !== hash10(hash)) throw bad(`batch control at record ${i + 1}: entry hash ${l.slice(10, 20)} does not match ${hash10(hash)}`);
      batch = undefined;
      entry = undefined;
    } else if (type === '9') {
      if (l === '9'.repeat(94)) continue;
      sawControl = true;
    } else if (type !== '1' || i !== 0) {
      throw bad(`record ${i + 1} has unknown type ${type}`);
    }
  }
  if (!sawControl) throw bad('no file control (9) record');
  return file;
}

/**
 * A return entry as the RDFI sends it back through the operator: the original entry's amount with
 * the mirrored transaction code (credit 22 returns as 21... here as the same code per NACHA's
 * return format for the ODFI), and an addenda 99 with reason code and original trace number.
 */
export function buildReturnFile(input: {
  rdfi_routing: string;
  odfi_id: string;
  odfi_name: string;
  created_at: Date;
  returns: Array<{ original: ParsedEntry | NachaEntryInput & { trace_number: string }; reason_code: string; information?: string }>;
  effective_date: string;
}): string {
  const entries: NachaEntryInput[] = [];
  const addendas: string[] = [];
  input.returns.forEach((r, i) => {
    const o = r.original as { transaction_code: string; routing_number: string; account_number: string; amount: string; name: string; trace_number: string; individual_id?: string };
    // Return transaction codes: 21/26/31/36 (the original code minus one).
    const code = String(parseInt(o.transaction_code, 10) - 1) as TransactionCode;
    const trace = input.rdfi_routing.slice(0, 8) + NUM(i + 1, 7);
    entries.push({ transaction_code: code, routing_number: input.odfi_id + abaCheckDigit(input.odfi_id), account_number: o.account_number, amount: o.amount, name: o.name, individual_id: o.individual_id, trace_number: trace });
    addendas.push(
      assertLen('7' + '99' + r.reason_code.padEnd(3).slice(0, 3) + NUM(o.trace_number, 15) + ' '.repeat(6) + o.routing_number.slice(0, 8) + ALNUM(r.information ?? '', 44) + trace),
    );
  });
  // Build with a placeholder addenda, then swap in the 99 records (the writer only knows 05).
  const built = buildNachaFile({
    immediate_destination: input.odfi_id + abaCheckDigit(input.odfi_id),
    immediate_destination_name: input.odfi_name,
    immediate_origin: input.rdfi_routing,
    immediate_origin_name: 'RDFI RETURNS',
    odfi_id: input.rdfi_routing.slice(0, 8),
    created_at: input.created_at,
    batches: [
      {
        sec_code: 'PPD',
        company_name: input.odfi_name,
        company_id: 'RETURNS',
        entry_description: 'RETURN',
        effective_date: input.effective_date,
        entries: entries.map((e) => ({ ...e, addenda: 'RETURN' })),
      },
    ],
  });
  let k = 0;
  return built.content
    .split('\n')
    .map((l) => (l.startsWith('705') ? addendas[k++] : l))
    .join('\n');
}
