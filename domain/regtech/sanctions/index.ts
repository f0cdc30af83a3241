/** Sanctions lists: loading the official OFAC files (load.ts), screening names and digital-currency addresses (screen.ts, addresses.ts). docs/regtech.md. */
export * from './addresses';
export * from './load';
export * from './screen';
export * from './operations';
