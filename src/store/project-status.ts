/** A project record with a new PEP 792 status: `active` is stored as no status, an empty reason as none. */
import type { ProjectRecord, ProjectStatusName } from './records.js';

export function withStatus(record: ProjectRecord, status: ProjectStatusName, reason: string | null): ProjectRecord {
  const { status: _status, statusReason: _reason, ...rest } = record;
  return { ...rest, ...(status === 'active' ? {} : { status }), ...(reason ? { statusReason: reason } : {}) };
}
