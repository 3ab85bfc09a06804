// Shapes of the end-of-life answers (src/lifecycle/routes.ts and service.ts).
import { ApiError } from '../../api/client.ts';
import type { Eol } from '../devices/EolBadge.tsx';

export interface EolMapping extends Eol {
  source?: string;
  release_date?: string | null;
  support_until?: string | null;
  eol?: boolean | null;
  lts?: boolean;
  latest_version?: string;
  synced_at?: string | null;
}

export interface Product {
  source: string;
  name: string;
  label: string;
  category: string;
}

export interface Suggestion extends Product {
  score: number;
  cycle: string;
}

export interface Cycle {
  name: string;
  label: string;
  release_date: string | null;
  eol_date: string | null;
  lts: boolean;
}

export interface EolSettings {
  enabled: boolean;
  warning_days: number;
  sources?: string[];
  source_urls?: Record<string, string>;
  available_sources?: Array<{ key: string; label: string; default_url: string; homepage: string }>;
  last_refresh_at?: string | null;
  last_refresh_status?: '' | 'queued' | 'running' | 'ok' | 'failed';
  last_refresh_error?: string;
  last_refresh_via?: string;
  products?: number;
  mappings?: number;
  can_manage?: boolean;
}

/** The tenant end-of-life endpoints answer 404 while the feature is off. */
export const isOff = (err: unknown) => err instanceof ApiError && err.status === 404;
