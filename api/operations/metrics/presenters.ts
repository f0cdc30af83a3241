/** Wire shape of the metrics area: the observability snapshot in Prometheus text exposition format 0.0.4. */
export { toPrometheus as presentPrometheus } from '../../../domain/observability/prometheus';
