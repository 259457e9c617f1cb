/** The error a write gets when the backend that keeps the records cannot be reached (the server answers 503). */
export class BackendUnavailable extends Error {
  /** Which backend: 'postgres', 's3', … */
  readonly backend: string;

  constructor(backend: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BackendUnavailable';
    this.backend = backend;
  }
}
