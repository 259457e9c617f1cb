/** Latency and failures of the shared backends (the database, the blob store), by operation. */
import { Counter, Histogram, type Registry } from 'prom-client';

/** What a backend reports for each call it makes. */
export type BackendObserver = (operation: string, ms: number, ok: boolean) => void;

export class BackendMetrics {
  private readonly latency: Histogram<'backend' | 'operation'>;
  private readonly errors: Counter<'backend' | 'operation'>;

  constructor(registry: Registry) {
    this.latency = new Histogram({
      name: 'larder_backend_request_duration_seconds',
      help: 'Time of each call to a shared backend (database, blobs), by operation.',
      labelNames: ['backend', 'operation'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
    this.errors = new Counter({
      name: 'larder_backend_errors_total',
      help: 'Calls to a shared backend (database, blobs) that failed, by operation.',
      labelNames: ['backend', 'operation'],
      registers: [registry],
    });
  }

  observer(backend: string): BackendObserver {
    return (operation, ms, ok) => {
      this.latency.observe({ backend, operation }, ms / 1000);
      if (!ok) this.errors.inc({ backend, operation });
    };
  }
}
