// Every workflow the worker runs. Workflow code is deterministic: no I/O, clock or randomness
// except through @temporalio/workflow.
export { transferWorkflow } from './transfer';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { railPaymentWorkflow } from './rail-payment';
export { interledgerPaymentWorkflow } from './interledger-payment';
export { achFileWorkflow } from './ach-file';
export { swapWorkflow } from './swap';
export { flashLoanWorkflow } from './flash-loan';
export { lendingWatchWorkflow } from './defi-lending';
export { crosschainSwapWorkflow } from './crosschain-swap';
export { stakingHarvestWorkflow, stakingUnbondWorkflow } from './defi-staking';
export { bridgeTransferWorkflow } from './bridge-transfer';
export { basketValuationWorkflow } from './basket-valuation';
export { governanceProposalWorkflow, monthlyGovernanceWorkflow } from './governance';
export { basketBuyWorkflow } from './basket-buy';
export { mifidDeadlineWorkflow } from './mifid-deadline';
export { paymentIntentWorkflow } from './payment-intent';
export { sdkGenerationWorkflow } from './sdk-generation';
export { smsSendWorkflow } from './sms-send';
export { openBankingConsentWorkflow } from './open-banking-consent';
export { obPaymentWorkflow } from './open-banking-payment';
export { mfProvisioningWorkflow } from './microfinance-provisioning';
export { mfLoanWorkflow } from './microfinance-loan';
export { apiKeyExpiryWorkflow, dataRetentionWorkflow, maintenanceWindowWorkflow } from './system-events';
export { x402ReconcileWorkflow } from './x402-reconcile';
