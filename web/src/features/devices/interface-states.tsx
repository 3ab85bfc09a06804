// What an interface row shows at a glance on a device's Interfaces tab, as NetBox colours its rows: disabled
// first (red edge, greyed), then virtual (a type of the catalog's Virtual group: blue edge), then connected (a
// cable or a far end: green edge); a physical port with nothing on it stays plain. Plus the MTU and MAC columns.
// Kept apart from InterfacesTab.tsx so the table's columns and actions evolve without touching these.
import { Badge } from '../../components/ui.tsx';

export type InterfaceState = 'disabled' | 'virtual' | 'connected' | 'unconnected';

interface StateInput {
  type: string;
  enabled: boolean;
  link_peer: unknown;
  connected_endpoint: unknown;
}

type Vocabulary = ReadonlyArray<{ value: string; group?: string }> | undefined;

export function interfaceState(i: StateInput, types: Vocabulary): InterfaceState {
  if (!i.enabled) return 'disabled';
  if (types?.find((t) => t.value === i.type)?.group === 'Virtual') return 'virtual';
  if (i.link_peer || i.connected_endpoint) return 'connected';
  return 'unconnected';
}

/** The row's edge colour and tone; the state is also named in the first cell, for those who do not see colour. */
export const ROW_CLASS: Record<InterfaceState, string> = {
  disabled: 'border-l-4 border-l-red-400 bg-red-50/40 text-slate-500',
  virtual: 'border-l-4 border-l-sky-400 bg-sky-50/40',
  connected: 'border-l-4 border-l-green-500',
  unconnected: 'border-l-4 border-l-transparent',
};

export function InterfaceStateBadge({ state }: { state: InterfaceState }) {
  if (state === 'disabled') return <Badge tone="red">disabled</Badge>;
  if (state === 'virtual') return <Badge tone="sky">virtual</Badge>;
  return null;
}

export function MtuCell({ mtu }: { mtu: number | null | undefined }) {
  return mtu ? <span className="tabular-nums">{mtu}</span> : <span className="text-slate-400">—</span>;
}

export function MacCell({ mac }: { mac: string | null | undefined }) {
  return mac ? <span className="font-mono text-xs whitespace-nowrap">{mac}</span> : <span className="text-slate-400">—</span>;
}

/** A key under the table saying what the row edges mean. */
export function InterfaceStateKey() {
  const item = (cls: string, text: string) => (
    <li className="inline-flex items-center gap-1">
      <span className={`inline-block h-3 w-1 ${cls}`} aria-hidden="true" />
      {text}
    </li>
  );
  return (
    <ul aria-label="Row colours" className="flex flex-wrap gap-x-4 text-xs text-slate-600">
      {item('bg-green-500', 'Connected')}
      {item('bg-red-400', 'Disabled')}
      {item('bg-sky-400', 'Virtual')}
    </ul>
  );
}
