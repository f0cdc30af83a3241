// Pure constants: imported by the delivery workflow (deterministic code) and the activities.

/**
 * Back-off between attempts (seconds): 30 s, 1 m, 5 m, 15 m, 1 h, 3 h, 6 h, 12 h — nine attempts
 * spread over about 22.4 hours. Durable workflow timers, so worker restarts do not reset it.
 */
export const RETRY_SCHEDULE_SECONDS = [30, 60, 300, 900, 3600, 3 * 3600, 6 * 3600, 12 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length + 1;
