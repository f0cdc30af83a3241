/** Wire schemas of the metrics area: Prometheus text; every error (401 without an operator's key, 429, ...) is the JSON envelope. */
import { errorResponses } from '../../schemas';

export const metricsResponse = { 200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } }, ...errorResponses };

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
