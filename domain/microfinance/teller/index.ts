/** Microfinance teller cash (docs/microfinance-teller.md): offices and vaults, staff, cashier sessions, counter transactions. */
export * from './offices';
export * from './sessions';
export * from './transactions';
export { exchangeQuote, RATE_DECIMALS, type ExchangeQuote } from './exchange';
