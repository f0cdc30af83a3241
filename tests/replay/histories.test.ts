import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { REPO_ROOT } from '../../domain/platform/config';
import { HISTORIES_DIR, quietTemporalRuntime } from '../helpers/worker';

// The recorded history of every workflow type, replayed with the current workflow code: a change
// that would break running executions (a new, removed or reordered command) fails here, in CI.
// Fixtures are recorded with RECORD_HISTORIES=1 (docs/operations.md, "Workflow history replay").

interface Fixture {
  file: string;
  type: string;
  json: { workflowId?: string; events: Array<Record<string, any>> };
}

function loadFixtures(dir: string): Fixture[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const json = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
      return { file: f, type: json.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name, json };
    });
}

/** One replay worker on the run's bundle for all fixtures; the failures, one line per file. */
async function replay(fixtures: Fixture[]): Promise<string[]> {
  const failures: string[] = [];
  let i = 0;
  const histories = fixtures.map((f) => ({ history: f.json, workflowId: f.json.workflowId ?? f.file }));
  for await (const r of Worker.runReplayHistories({ workflowBundle: { code: inject('workflowBundleCode') }, replayName: 'fixtures' }, histories)) {
    const f = fixtures[i++];
    if (r.error) failures.push(`${f.file}: ${r.error.name}: ${r.error.message}`);
  }
  expect(i, 'every fixture was replayed').toBe(fixtures.length);
  return failures;
}

/** The workflow functions the worker registers: workflows/index.ts's `export { ... } from` lines. */
function exportedWorkflows(): string[] {
  const src = readFileSync(path.join(REPO_ROOT, 'workflows/index.ts'), 'utf8');
  return [...src.matchAll(/^export\s*\{([^}]*)\}\s*from/gm)].flatMap((m) => m[1].split(',').map((s) => s.trim().split(/\s+as\s+/).pop()!)).filter(Boolean);
}

let fixtures: Fixture[];
beforeAll(() => {
  quietTemporalRuntime();
  fixtures = loadFixtures(HISTORIES_DIR);
});

describe('workflow history replay', () => {
  it('every workflow exported from workflows/index.ts has a recorded history', () => {
    const workflows = exportedWorkflows();
    expect(workflows.length).toBeGreaterThanOrEqual(26);
    const covered = new Set(fixtures.map((f) => f.type));
    expect(workflows.filter((w) => !covered.has(w)), 'record them: RECORD_HISTORIES=1 npx vitest run <tests that run them>').toEqual([]);
    // A fixture of a type the worker no longer registers would replay nothing useful.
    expect(fixtures.filter((f) => !workflows.includes(f.type)).map((f) => f.file)).toEqual([]);
  });

  it('the current workflow code replays every recorded history', async () => {
    expect(await replay(fixtures)).toEqual([]);
  });

  it('a history the code would not produce fails, with its file name', async () => {
    // The transfer fixture with its first scheduled activity renamed, as if the code had changed
    // which activity it runs first: the replay must report a DeterminismViolationError for that file.
    const dir = mkdtempSync(path.join(tmpdir(), 'replay-'));
    const original = fixtures.find((f) => f.file === 'transferWorkflow-completed-single-activity.json')!;
    const tampered = structuredClone(original.json);
    const scheduled = tampered.events.find((e) => e.activityTaskScheduledEventAttributes)!;
    scheduled.activityTaskScheduledEventAttributes.activityType.name = 'somethingElse';
    writeFileSync(path.join(dir, 'tampered-activity.json'), JSON.stringify(tampered));

    // And one with a fired timer gone (TimerStarted and TimerFired removed, event ids renumbered and
    // references to them rewritten, so the history is well formed): the code starts a timer the
    // history never saw.
    const withTimer = fixtures.find((f) => f.json.events.some((e) => e.timerFiredEventAttributes))!;
    const noTimer = structuredClone(withTimer.json);
    const fired = noTimer.events.find((e) => e.timerFiredEventAttributes)!;
    const dropped = new Set([fired.eventId, fired.timerFiredEventAttributes.startedEventId]);
    noTimer.events = noTimer.events.filter((e) => !dropped.has(e.eventId));
    const renumbered = new Map(noTimer.events.map((e, i) => [e.eventId as string, String(i + 1)]));
    const rewrite = (o: Record<string, any>) => {
      for (const [k, v] of Object.entries(o)) {
        if (k.endsWith('EventId') && renumbered.has(v)) o[k] = renumbered.get(v);
        else if (v && typeof v === 'object') rewrite(v);
      }
    };
    for (const e of noTimer.events) {
      e.eventId = renumbered.get(e.eventId);
      rewrite(e);
    }
    writeFileSync(path.join(dir, 'tampered-timer.json'), JSON.stringify(noTimer));

    const failures = await replay([original, ...loadFixtures(dir)]);
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(/^tampered-activity\.json: DeterminismViolationError: /);
    expect(failures[1]).toMatch(/^tampered-timer\.json: DeterminismViolationError: /);
  });
});
