// Shapes of the monitoring answers the service pages read (src/monitoring/models.ts).
import type { ApiObject, Brief } from '../../api/types.ts';

export type CheckState = 'up' | 'down' | 'unknown';

export interface Service extends ApiObject {
  name: string;
  device: Brief | null;
  virtual_machine: Brief | null;
  protocol_ports: Record<string, number[]>;
  ip_address: Brief | null;
  monitored: boolean;
  description: string;
  check_count: number;
  status: CheckState;
}

export interface CheckAssignment extends ApiObject {
  template: Brief;
  ip_address: Brief;
  service: Brief | null;
  enabled: boolean;
  state: CheckState;
  last_result: CheckState | null;
  last_latency_ms: string | number | null;
  last_detail: string;
  last_checked: string | null;
}

export const SERVICES_PATH = '/api/services/';
export const CHECKS_PATH = '/api/check-assignments/';

export const STATE_TONE: Record<CheckState, 'green' | 'red' | 'slate'> = { up: 'green', down: 'red', unknown: 'slate' };

/** `{"tcp": [22, 443]}` → `tcp 22, 443`. */
export function portsText(pp: Record<string, number[]> | undefined): string {
  const parts = Object.entries(pp ?? {}).filter(([, ports]) => ports.length).map(([proto, ports]) => `${proto} ${ports.join(', ')}`);
  return parts.length ? parts.join(' · ') : '—';
}
