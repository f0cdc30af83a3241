/**
 * Every business rule the validator applies beyond the XSD, with its level and where it comes from.
 * A rule is an error only when the ISO 20022 standard (a message definition rule, a data type
 * constraint, or an element definition whose breach has its own ISO rejection reason code) or a
 * usage guideline makes it one, or the platform cannot process the message without it. Our own
 * consistency checks that real bank files legitimately break are warnings: reported, never refused.
 * docs/iso20022.md carries the same table (a test keeps them in step).
 */
export type RuleLevel = 'error' | 'warning';

export interface RuleDef {
  level: RuleLevel;
  /** The ISO 20022 rule / definition / usage guideline, or "platform rule: <reason>". */
  source: string;
}

export const RULES = {
  iban: {
    level: 'error',
    source: 'ISO 20022 data type rule "IBAN" (IBAN2007Identifier): a valid IBAN per ISO 13616 (country code, check digits, BBAN)',
  },
  bic: {
    level: 'error',
    source: 'ISO 20022 data type rules "BICFI" / "AnyBIC": a BIC registered under ISO 9362, 8 or 11 characters',
  },
  currency: {
    level: 'error',
    source: 'ISO 20022 data type rules "ActiveCurrency" / "ActiveOrHistoricCurrency": an ISO 4217 currency code',
  },
  'currency-decimals': {
    level: 'error',
    source: 'ISO 20022 data type rule "CurrencyAmount": the number of fractional digits must comply with ISO 4217',
  },
  'number-of-transactions': {
    level: 'error',
    source:
      'ISO 20022 definition of NbOfTxs ("number of individual transactions contained in the message"); no formal MDR constraint, ' +
      'but a mismatch is what ExternalStatusReason1Code AM18 (InvalidNumberOfTransactions) rejects',
  },
  'control-sum': {
    level: 'error',
    source:
      'ISO 20022 definition of CtrlSum ("total of all individual amounts included in the message, irrespective of currencies"); ' +
      'no formal MDR constraint, but a mismatch is what ExternalStatusReason1Code AM10 (InvalidControlSum) rejects',
  },
  'reference-required': {
    level: 'error',
    source:
      'ISO 20022 message definition: a mandatory reference (Max35Text, at least one character); platform rule: a value of blanks only ' +
      'identifies nothing',
  },
  'reference-unique': {
    level: 'error',
    source:
      'ISO 20022 element definitions ("unique identification … to unambiguously identify" the payment information, instruction, ' +
      'transaction, UETR, status or cancellation); duplicates are what ExternalStatusReason1Code DU02–DU05 reject',
  },
  'rejection-reason': {
    level: 'error',
    source:
      'usage guidelines (EPC SEPA rulebooks: a reject carries its reason code, attribute AT-R3; CBPR+ pacs.002), not an ISO 20022 MDR rule; ' +
      'platform rule: a refusal without a reason cannot be acted on',
  },
  'header-consistency': {
    level: 'error',
    source:
      'ISO 20022 head.001 definition of MsgDefIdr ("contains the MessageIdentifier that defines the BusinessMessage"): a header naming ' +
      'another message misroutes the document',
  },
  'header-version': {
    level: 'error',
    source: 'platform rule: the AppHdr must be a head.001 version the platform has a schema for, or it cannot be checked',
  },
  'date-consistency': {
    level: 'warning',
    source:
      'platform rule (no ISO 20022 constraint): ReqdExctnDt / IntrBkSttlmDt before the creation date or an inverted FrToDt period ' +
      'is suspicious, but banks commonly execute a past requested date on the next possible day and the message stays readable',
  },
  'statement-summary': {
    level: 'warning',
    source:
      'ISO 20022 camt.053/camt.054 definitions of TxsSummry (NbOfNtries "number of individual entries included in the report", Sum ' +
      '"total of all individual entries"), no formal rule; platform consistency check: a page of a paginated statement may carry the ' +
      'totals of every page',
  },
  'statement-reference-unique': {
    level: 'warning',
    source:
      'ISO 20022 camt.053/camt.054 definitions of Stmt/Ntfctn Id and NtryRef ("unique"), no formal rule; platform consistency check: ' +
      'a report is the account servicer\'s information and a repeated reference does not stop reading it',
  },
  'balance-reconciliation': {
    level: 'warning',
    source:
      'platform rule (camt.053 defines no balance rule): per currency, the opening booked balance (OPBD, else PRCD; on a later page ' +
      'of a paginated statement the ITBD it opens with) plus the BOOK entries (signed by CdtDbtInd, which for a reversal is the ' +
      'reversal\'s own direction per the ReversalIndicator usage note) equals the closing booked balance (CLBD; on an earlier page the ' +
      'ITBD it closes with)',
  },
} as const satisfies Record<string, RuleDef>;

export type RuleCode = keyof typeof RULES;

/** Overrides of a rule's source where one message's definition names the rule precisely. */
export const SOURCES = {
  pacs008TotalSum: 'ISO 20022 pacs.008 rule "TotalInterbankSettlementAmountAndSumRule": TtlIntrBkSttlmAmt equals the sum of IntrBkSttlmAmt',
  pacs008TotalCurrency:
    'ISO 20022 pacs.008 rule "TotalInterbankSettlementAmountRule": every IntrBkSttlmAmt has the currency of TtlIntrBkSttlmAmt',
  camt056Original:
    'platform rule (camt.056 leaves each original reference optional): a cancellation must name the payment it cancels to be matched',
} as const;
