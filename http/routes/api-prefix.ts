/** The version prefix of weir's own HTTP API (the contract's `/api/v1`). */
export const API_PREFIX = '/api/v1';
