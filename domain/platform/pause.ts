/**
 * A pause a loop can be woken from: long-running loops (the outbox relay, stream consumers) sleep
 * between rounds and are woken at once when they are stopped.
 */
export interface Pause {
  /** Resolves after `ms`, or as soon as wake() is called. */
  sleep(ms: number): Promise<void>;
  /** Ends the pause in progress, if any (a later sleep pauses again). */
  wake(): void;
}

export function wakeablePause(): Pause {
  let end: (() => void) | undefined;
  return {
    sleep: (ms) =>
      new Promise<void>((res) => {
        const t = setTimeout(res, ms);
        end = () => {
          clearTimeout(t);
          res();
        };
      }),
    wake: () => end?.(),
  };
}
