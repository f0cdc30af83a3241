import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { displayPath } from '../../domain/platform/config';

// What `npm start` prints for where it keeps data: the place it really uses (DATA_DIR included).
describe('displayPath', () => {
  const cwd = path.resolve('/srv/bank');
  it('is relative inside the working directory, absolute outside it', () => {
    expect(displayPath(path.join(cwd, '.data', 'temporal'), cwd)).toBe(path.join('.data', 'temporal'));
    expect(displayPath(path.resolve('/var/lib/bank/temporal'), cwd)).toBe(path.resolve('/var/lib/bank/temporal'));
    expect(displayPath(path.resolve('/srv/bank-other/x'), cwd)).toBe(path.resolve('/srv/bank-other/x'));
    expect(displayPath(cwd, cwd)).toBe('.');
  });
});
