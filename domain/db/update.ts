/**
 * The SET list of a partial update of the row whose id is $1: updated_at always moves, the value
 * 'now' means the database's now(), objects are stored as JSON. Column names come from the
 * caller's typed field list, never from input.
 */
export function updateAssignments(id: string, fields: Record<string, unknown>): { sets: string; values: unknown[] } {
  const sets = ['updated_at = now()'];
  const values: unknown[] = [id];
  for (const [column, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    if (v === 'now') {
      sets.push(`${column} = now()`);
      continue;
    }
    values.push(v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v);
    sets.push(`${column} = $${values.length}`);
  }
  return { sets: sets.join(', '), values };
}
