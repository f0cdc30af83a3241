import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { PartnerSdkActivities } from '../activities/partner/sdk';
import type { SdkLanguage } from '../domain/partner/sdk/request';
import { failureOf } from '../domain/temporal/failures';
import { SA } from '../domain/temporal/search-attributes';

const record = proxyActivities<PartnerSdkActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

export interface SdkGenerationInput {
  generationId: string;
  languages: SdkLanguage[];
  /** SDK_GENERATOR_TIMEOUT_SECONDS when the generation was requested: one language's whole budget. */
  generatorTimeoutSeconds: number;
}

/**
 * One SDK generation (domain/partner/sdk): every requested language built in parallel, one activity
 * each (idempotent by cache key, so a retry or a replay never generates twice), then the outcome
 * recorded with its sdk.generated event. A failed build fails the generation with its code.
 */
export async function sdkGenerationWorkflow(input: SdkGenerationInput): Promise<'completed' | 'failed'> {
  const build = proxyActivities<PartnerSdkActivities>({
    // The generator's own time-out kills it first; this only bounds a lost worker.
    startToCloseTimeout: (input.generatorTimeoutSeconds + 60) * 1000,
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
  });
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'generating' }] as never);
  try {
    const packages = await Promise.all(
      input.languages.map((language) =>
        language === 'typescript' ? build.buildTypescriptSdk({ generationId: input.generationId }) : build.buildPythonSdk({ generationId: input.generationId }),
      ),
    );
    await record.completeSdkGeneration({ generationId: input.generationId, packages });
    upsertSearchAttributes([{ key: SA.businessStatus, value: 'completed' }] as never);
    return 'completed';
  } catch (err) {
    const { code, reason } = failureOf(err, 'SDK_GENERATION_FAILED');
    await record.failSdkGeneration({ generationId: input.generationId, code, message: reason });
    upsertSearchAttributes([{ key: SA.businessStatus, value: 'failed' }] as never);
    return 'failed';
  }
}
