/**
 * SDK generation activities (workflows/sdk-generation.ts): one per language, each idempotent by
 * cache key (a package already built is returned, never generated again: domain/partner/sdk/build.ts),
 * and the two that record the outcome. A generator that fails or is missing is a non-retryable
 * failure carrying its code; one that ran out of time is retried (the workflow's policy bounds it).
 */
import { ApplicationFailure } from '@temporalio/common';
import { completeSdkGeneration, failSdkGeneration, type SdkLanguage, type SdkPackageResult } from '../../domain/partner/sdk';
import { buildSdkPackage } from '../../domain/partner/sdk/build';
import { SdkGeneratorError } from '../../domain/partner/sdk/generate';

async function build(generationId: string, language: SdkLanguage): Promise<SdkPackageResult> {
  try {
    return await buildSdkPackage(generationId, language);
  } catch (err) {
    if (!(err instanceof SdkGeneratorError)) throw err;
    if (err.code === 'SDK_GENERATOR_TIMEOUT') throw ApplicationFailure.retryable(err.message, err.code);
    throw ApplicationFailure.nonRetryable(err.message, err.code);
  }
}

export function createPartnerSdkActivities() {
  return {
    async buildTypescriptSdk({ generationId }: { generationId: string }): Promise<SdkPackageResult> {
      return build(generationId, 'typescript');
    },
    async buildPythonSdk({ generationId }: { generationId: string }): Promise<SdkPackageResult> {
      return build(generationId, 'python');
    },
    async completeSdkGeneration({ generationId, packages }: { generationId: string; packages: SdkPackageResult[] }): Promise<void> {
      await completeSdkGeneration(generationId, packages);
    },
    async failSdkGeneration({ generationId, code, message }: { generationId: string; code: string; message: string }): Promise<void> {
      await failSdkGeneration(generationId, { code, message });
    },
  };
}

export type PartnerSdkActivities = ReturnType<typeof createPartnerSdkActivities>;
