// Navigation by domain: the models the caller may view (from /api/models/) grouped by their app, in a fixed
// group order, plus the entries feature modules register.
import type { ComponentType } from 'react';
import type { ModelInfo } from '../api/types.ts';

export const APP_GROUPS: Array<{ label: string; apps: string[] }> = [
  { label: 'Organization', apps: ['organization', 'tenancy'] },
  { label: 'Devices', apps: ['dcim'] },
  { label: 'Circuits', apps: ['circuits'] },
  { label: 'IPAM', apps: ['ipam'] },
  { label: 'Virtualization', apps: ['virtualization'] },
  { label: 'Wireless', apps: ['wireless'] },
  { label: 'VPN', apps: ['vpn'] },
  { label: 'Routing', apps: ['routing'] },
  { label: 'Monitoring', apps: ['monitoring'] },
  { label: 'Compliance', apps: ['compliance', 'lifecycle'] },
  { label: 'Automation', apps: ['automation'] },
  { label: 'Customization', apps: ['extras', 'templating'] },
  { label: 'Logs', apps: ['core'] },
  { label: 'Admin', apps: ['users'] },
];

export interface NavGroup {
  label: string;
  entries: Array<{ label: string; to: string; badge?: ComponentType }>;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function modelGroups(models: ModelInfo[]): NavGroup[] {
  const groups: NavGroup[] = APP_GROUPS.map((g) => ({ label: g.label, entries: [] }));
  const other: NavGroup = { label: 'Other', entries: [] };
  for (const m of models) {
    const idx = APP_GROUPS.findIndex((g) => g.apps.includes(m.app));
    (idx >= 0 ? groups[idx]! : other).entries.push({ label: capitalize(m.label_plural), to: `/objects/${m.model}` });
  }
  for (const g of [...groups, other]) g.entries.sort((a, b) => a.label.localeCompare(b.label));
  return [...groups, other].filter((g) => g.entries.length > 0);
}
