export const PoolCodes = ['POOL_OVERLOADED', 'POOL_TASK_TIMEOUT', 'POOL_WORKER_FAILED', 'POOL_CLOSED'] as const;
export type PoolCode = (typeof PoolCodes)[number];
