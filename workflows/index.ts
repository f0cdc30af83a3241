// Every workflow the worker runs. Workflow code is deterministic: no I/O, clock or randomness
// except through @temporalio/workflow.
export { transferWorkflow } from './transfer';
