/** Sanctions lists: loading the official OFAC files (load.ts) and screening names (screen.ts). docs/regtech.md. */
export * from './load';
export * from './screen';
export * from './operations';
