/**
 * The words the parser knows, as phrase tables (longest phrase first). Every value here is one of
 * the filter's allow-listed values: a phrase can only ever select from them.
 */
import { AI_CURRENCIES, AI_BRIDGES, type AiCurrency, type AiStatus, type AiTransactionType } from '../filter';
import type { Token } from './tokens';

export class PhraseTable<T> {
  private readonly byFirst = new Map<string, Array<{ words: string[]; value: T }>>();

  add(phrases: string | string[], value: T): this {
    for (const phrase of Array.isArray(phrases) ? phrases : [phrases]) {
      const words = phrase.split(' ');
      const list = this.byFirst.get(words[0]) ?? [];
      list.push({ words, value });
      list.sort((a, b) => b.words.length - a.words.length);
      this.byFirst.set(words[0], list);
    }
    return this;
  }

  /** The longest phrase starting at token i. */
  match(tokens: readonly Token[], i: number): { end: number; value: T } | null {
    const t = tokens[i];
    if (!t) return null;
    const list = this.byFirst.get(t.norm);
    if (!list) return null;
    for (const { words, value } of list) {
      if (i + words.length > tokens.length) continue;
      let ok = true;
      for (let k = 1; k < words.length && ok; k++) ok = tokens[i + k].norm === words[k];
      if (ok) return { end: i + words.length, value };
    }
    return null;
  }

  has(word: string): boolean {
    return this.byFirst.has(word);
  }
}

/** Plural forms of a noun phrase and its singular: [singular, plural]. */
const sp = (singular: string, plural = `${singular}s`) => ({ singular, plural });

export interface NounValue<T> {
  value: T;
  plural: boolean;
}

function nouns<T>(table: PhraseTable<NounValue<T>>, value: T, forms: Array<{ singular: string; plural: string } | string>) {
  for (const f of forms) {
    if (typeof f === 'string') table.add(f, { value, plural: false });
    else table.add(f.singular, { value, plural: false }).add(f.plural, { value, plural: true });
  }
}

// ---------------------------------------------------------------- transaction types
export const TYPE_PHRASES = new PhraseTable<NounValue<AiTransactionType>>();
nouns(TYPE_PHRASES, 'deposit', [sp('deposit'), 'deposited', sp('top-up'), sp('top up'), sp('topup'), sp('incoming deposit'), { singular: 'incoming fund', plural: 'incoming funds' }]);
nouns(TYPE_PHRASES, 'withdrawal', [sp('withdrawal'), 'withdraw', 'withdrew', 'withdrawn', sp('cash-out'), sp('cash out'), sp('cashout')]);
nouns(TYPE_PHRASES, 'transfer', [sp('transfer'), 'transferred', sp('p2p transfer'), 'p2p', { singular: 'sent money', plural: 'sent money' }, { singular: 'money sent', plural: 'money sent' }]);
nouns(TYPE_PHRASES, 'cross_chain_transfer', [
  sp('bridge'), 'bridged', 'bridging', sp('bridge transfer'), sp('bridge transaction'), sp('bridging transaction'),
  ...['cross-chain', 'cross chain', 'crosschain'].flatMap((w) => [w, sp(`${w} transfer`), sp(`${w} transaction`), sp(`${w} payment`), sp(`${w} move`)]),
]);
nouns(TYPE_PHRASES, 'swap', [sp('swap'), 'swapped', sp('token swap'), sp('trade'), 'traded', { singular: 'exchange', plural: 'exchanges' }, 'exchanged', sp('conversion'), 'converted']);
nouns(TYPE_PHRASES, 'rail_payment', [
  sp('rail payment'), sp('wire'), sp('wire transfer'), sp('wire payment'), sp('bank transfer'), sp('bank payment'),
  ...['ach', 'sepa', 'fednow', 'rtp'].flatMap((w) => [w, sp(`${w} payment`), sp(`${w} transfer`)]),
  sp('sepa credit transfer'), sp('instant payment'),
]);
nouns(TYPE_PHRASES, 'interledger_payment', ['interledger', sp('interledger payment'), 'ilp', sp('ilp payment'), sp('interledger transfer')]);
nouns(TYPE_PHRASES, 'basket_buy', [sp('gcu buy'), sp('gcu purchase'), 'buy gcu', 'bought gcu', 'gcu bought', sp('basket buy'), sp('basket purchase'), 'buys of gcu', 'purchases of gcu']);
nouns(TYPE_PHRASES, 'fee', [sp('fee'), sp('charge'), 'fees paid']);
nouns(TYPE_PHRASES, 'reversal', [sp('reversal'), 'reversed', sp('refund'), 'refunded', sp('chargeback')]);

/** Nouns that name transactions in general: understood, no filter. payment(s) also marks "payments to X" as transfers. */
export const GENERIC_NOUNS = new PhraseTable<NounValue<'generic' | 'payment'>>();
nouns(GENERIC_NOUNS, 'generic', [sp('transaction'), sp('txn'), sp('tx', 'txs'), sp('movement'), sp('operation'), sp('record'), sp('entry', 'entries'), 'activity', 'activities', 'history', 'money', 'funds', sp('chain'), sp('network'), 'crypto', sp('asset'), sp('currency', 'currencies'), sp('token'), sp('account')]);
nouns(GENERIC_NOUNS, 'payment', [sp('payment')]);

// ---------------------------------------------------------------- statuses, compliance, direction
export const STATUS_PHRASES = new PhraseTable<AiStatus>()
  .add(['pending review', 'under review', 'awaiting review', 'waiting for review', 'in review', 'held', 'on hold', 'held for review'], 'pending_review')
  .add(['pending', 'in progress', 'processing', 'in flight', 'ongoing', 'unsettled'], 'pending')
  .add(['completed', 'complete', 'succeeded', 'successful', 'settled', 'done', 'finished', 'posted', 'cleared'], 'completed')
  .add(['failed', 'failing', 'declined', 'rejected', 'unsuccessful', 'bounced'], 'failed');

export const COMPLIANCE_PHRASES = new PhraseTable<boolean>()
  .add(['flagged', 'suspicious', 'needs review', 'need review', 'needing review', 'require review', 'requires review', 'red flags', 'red flagged', 'risky', 'high risk', 'high-risk'], true)
  .add(['compliance flag', 'compliance flags', 'compliance issue', 'compliance issues', 'compliance alert', 'compliance alerts', 'compliance problems', 'compliance hits', 'aml alerts', 'aml flags', 'with flags', 'with a flag'], true)
  .add(['not flagged', 'unflagged', 'clean', 'no flags', 'no flag', 'without flags', 'no compliance flags', 'without compliance flags', 'no compliance issues', 'without compliance issues', 'not suspicious'], false);

export const DIRECTION_WORDS = new PhraseTable<'in' | 'out'>()
  .add(['incoming', 'inbound', 'received', 'receive', 'receiving', 'credited', 'credits', 'inflows', 'inflow', 'money in'], 'in')
  .add(['outgoing', 'outbound', 'sent', 'send', 'sending', 'spent', 'spend', 'spending', 'paid', 'debited', 'debits', 'outflows', 'outflow', 'money out'], 'out');
/** Verbs that make "what did I spend" a sum. */
export const SPEND_VERBS = new Set(['spent', 'spend', 'spending', 'paid']);
/** Past participles after "have" that keep "how much have I ..." a sum rather than a balance. */
export const MOVEMENT_PARTICIPLES = new Set(['spent', 'sent', 'received', 'paid', 'deposited', 'withdrawn', 'transferred', 'bridged', 'swapped', 'moved', 'earned', 'made', 'lost']);

// ---------------------------------------------------------------- intents, sorting
export type IntentWord = 'how_much' | 'count' | 'sum' | 'average' | 'balance';
export const INTENT_PHRASES = new PhraseTable<IntentWord>()
  .add(['how much'], 'how_much')
  .add(['how many', 'number of', 'count', 'count of', 'counting'], 'count')
  .add(['total', 'totals', 'sum', 'sum of', 'in total', 'total of', 'volume', 'overall'], 'sum')
  .add(['average', 'avg', 'mean', 'on average', 'average of'], 'average')
  .add(['balance', 'balances', 'hold', 'holding', 'holdings', 'own', 'left'], 'balance');

export type SortWord = { field: 'amount' | 'created_at'; order: 'asc' | 'desc'; superlative: boolean };
export const SORT_PHRASES = new PhraseTable<SortWord>()
  .add(['largest', 'biggest', 'highest', 'max', 'maximum', 'most expensive', 'greatest', 'top'], { field: 'amount', order: 'desc', superlative: true })
  .add(['smallest', 'lowest', 'min', 'minimum', 'cheapest', 'least expensive', 'tiniest'], { field: 'amount', order: 'asc', superlative: true })
  .add(['latest', 'newest', 'most recent', 'recent', 'last', 'recently'], { field: 'created_at', order: 'desc', superlative: false })
  .add(['oldest', 'earliest', 'first', 'least recent'], { field: 'created_at', order: 'asc', superlative: false });
export const SORT_BY = new PhraseTable<true>().add(['sorted by', 'sort by', 'ordered by', 'order by', 'sorted on', 'ranked by'], true);
export const SORT_FIELDS = new PhraseTable<'amount' | 'created_at'>()
  .add(['amount', 'size', 'value', 'amounts'], 'amount')
  .add(['date', 'time', 'created', 'creation date', 'recency'], 'created_at');
export const SORT_ORDERS = new PhraseTable<'asc' | 'desc'>()
  .add(['asc', 'ascending', 'increasing', 'smallest first', 'oldest first', 'lowest first'], 'asc')
  .add(['desc', 'descending', 'decreasing', 'largest first', 'newest first', 'highest first', 'biggest first'], 'desc');

// ---------------------------------------------------------------- amounts
export type Comparator = 'minExclusive' | 'minInclusive' | 'maxExclusive' | 'maxInclusive' | 'exact';
export const COMPARATORS = new PhraseTable<Comparator>()
  .add(['over', 'above', 'more than', 'greater than', 'higher than', 'larger than', 'bigger than', 'exceeding', 'exceeds', 'in excess of', 'upwards of', '>'], 'minExclusive')
  .add(['at least', 'minimum', 'minimum of', 'min', 'no less than', 'not less than', '>=', '≥'], 'minInclusive')
  .add(['under', 'below', 'less than', 'lower than', 'smaller than', 'beneath', 'fewer than', '<'], 'maxExclusive')
  .add(['at most', 'up to', 'upto', 'maximum', 'maximum of', 'max', 'no more than', 'not more than', '<=', '≤'], 'maxInclusive')
  .add(['exactly', 'of exactly', 'equal to', 'equals', 'precisely'], 'exact');
export const MAGNITUDE_WORDS: Readonly<Record<string, 'k' | 'm' | 'b'>> = { k: 'k', thousand: 'k', grand: 'k', m: 'm', million: 'm', mil: 'm', mn: 'm', b: 'b', bn: 'b', billion: 'b' };

// ---------------------------------------------------------------- currencies, chains, bridges
export const CURRENCY_SYMBOLS: Readonly<Record<string, AiCurrency>> = { $: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₿': 'BTC' };
export const CURRENCY_PHRASES = new PhraseTable<AiCurrency>();
for (const c of AI_CURRENCIES) CURRENCY_PHRASES.add(c.toLowerCase(), c);
CURRENCY_PHRASES.add(['dollar', 'dollars', 'us dollars', 'us dollar', 'bucks', 'usd$'], 'USD')
  .add(['euro', 'euros'], 'EUR')
  .add(['pound', 'pounds', 'sterling', 'pounds sterling', 'quid'], 'GBP')
  .add(['swiss franc', 'swiss francs', 'franc', 'francs'], 'CHF')
  .add(['yen', 'japanese yen'], 'JPY')
  .add(['gold'], 'XAU')
  .add(['bitcoin', 'bitcoins'], 'BTC')
  .add(['ether'], 'ETH')
  .add(['usd coin', 'usdc coin'], 'USDC')
  .add(['tether'], 'USDT')
  .add(['wrapped ether', 'wrapped eth'], 'WETH')
  .add(['wrapped bitcoin', 'wrapped btc'], 'WBTC')
  .add(['global currency unit', 'global currency units', 'gcus'], 'GCU');

/** Bridge protocols by id, plus the names their records use (domain/crosschain/bridges.ts). */
export const BRIDGE_PHRASES = new PhraseTable<string>();
for (const id of AI_BRIDGES) BRIDGE_PHRASES.add(id, id);
const BRIDGE_ALIASES: Readonly<Record<string, string[]>> = { layerzero: ['layer zero', 'layer-zero', 'stargate'], wormhole: ['worm hole'], axelar: ['axelar gateway'] };
for (const [id, aliases] of Object.entries(BRIDGE_ALIASES)) if (AI_BRIDGES.includes(id)) BRIDGE_PHRASES.add(aliases, id);

/** Words before a name that make it a chain rather than an asset ("on sol", "via eth"). */
export const CHAIN_CONTEXT_BEFORE = new Set(['on', 'via', 'over', 'across', 'through', 'onto']);
export const CHAIN_CONTEXT_AFTER = new Set(['chain', 'network', 'blockchain', 'mainnet']);

// ---------------------------------------------------------------- dates
export const MONTHS: Readonly<Record<string, number>> = {
  january: 1, jan: 1, february: 2, feb: 2, march: 3, mar: 3, april: 4, apr: 4, may: 5, june: 6, jun: 6,
  july: 7, jul: 7, august: 8, aug: 8, september: 9, sep: 9, sept: 9, october: 10, oct: 10, november: 11, nov: 11, december: 12, dec: 12,
};
/** Month names that are also ordinary words: a date only next to a date keyword, a day or a year. */
export const AMBIGUOUS_MONTHS = new Set(['may', 'mar', 'jan', 'dec']);
export const WEEKDAYS: Readonly<Record<string, number>> = {
  monday: 1, mon: 1, tuesday: 2, tue: 2, tues: 2, wednesday: 3, wed: 3, thursday: 4, thu: 4, thurs: 4, friday: 5, fri: 5, saturday: 6, sat: 6, sunday: 7, sun: 7,
};
export type Unit = 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';
export const UNITS: Readonly<Record<string, Unit>> = {
  hour: 'hour', hours: 'hour', hrs: 'hour', day: 'day', days: 'day', week: 'week', weeks: 'week', month: 'month', months: 'month',
  quarter: 'quarter', quarters: 'quarter', year: 'year', years: 'year',
};
export const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, fifteen: 15, twenty: 20, thirty: 30, fifty: 50, hundred: 100,
};
export const QUARTER_WORDS: Readonly<Record<string, number>> = { first: 1, '1st': 1, second: 2, '2nd': 2, third: 3, '3rd': 3, fourth: 4, '4th': 4 };

// ---------------------------------------------------------------- glue
/** Negations: what follows them cannot be expressed in the filter (except the compliance phrases above). */
export const NEGATIONS = new Set(['not', 'no', 'non', 'never', 'excluding', 'except', 'without', 'exclude', 'excluded', 'but', "isn't", "aren't", "wasn't", "weren't", "don't", "didn't"]);

/** Function words: neither help nor hurt confidence. */
export const STOP_WORDS = new Set([
  'i', "i'm", "i've", 'me', 'my', 'mine', 'myself', 'we', 'us', 'our', 'ours', 'you', 'your', 'show', 'list', 'find', 'get', 'give', 'display', 'see', 'view',
  'fetch', 'return', 'tell', 'lookup', 'look', 'search', 'all', 'any', 'every', 'each', 'the', 'a', 'an', 'of', 'in', 'on', 'for', 'with', 'to', 'from', 'by',
  'at', 'as', 'about', 'what', "what's", 'whats', 'which', 'who', 'where', 'when', 'how', 'why', 'did', 'do', 'does', 'have', 'has', 'had', 'having', 'was',
  'were', 'is', 'are', 'be', 'been', 'being', 'am', 'please', 'pls', 'and', 'or', 'that', 'those', 'these', 'this', 'there', "there's", 'it', 'its', "it's",
  'them', 'they', 'their', 'can', 'could', 'would', 'should', 'will', 'may', 'might', 'just', 'only', 'some', 'made', 'make', 'across', 'via', 'over', 'through',
  'within', 'during', 'between', 'since', 'than', 'up', 'ever', 'so', 'far', 'yet', 'now', 'also', 'too', 'then', 'here', 'want', 'wanna', 'need', 'like',
  'let', "let's", 'lets', 'know', 'much', 'many', 'both', 'either', 'per', 'into', 'onto', 'using', 'used', 'use', 'out', 'were', 'ones', 'one', 'kindly',
  'thanks', 'thank', 'hi', 'hello', 'hey', 'currently', 'right', 'happened', 'happen', 'anything', 'everything', 'something', 'things', 'thing', 'items', 'item',
  'details', 'detail', 'info', 'information', 'overview', 'summary', 'report', 'did', 'go', 'went', 'gone', 'take', 'took', 'taken', 'got',
]);
