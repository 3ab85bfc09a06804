// A cable's page heading: its two ends (`ams1-leaf01 › Ethernet1 ⇢ ams1-spine1 › Ethernet7`), which is what a
// reader looks for, with its label and number beneath; "Cable #806" only while an end is missing.
import type { ApiObject } from '../../api/types.ts';
import type { DetailTitle } from '../../app/extensions.ts';

function endText(end: unknown): string {
  if (!Array.isArray(end)) return '';
  const names = end.map((t) => (t && typeof t === 'object' && 'display' in t ? String((t as { display: unknown }).display) : '')).filter(Boolean);
  if (names.length <= 1) return names[0] ?? '';
  // Several ports of one device (a breakout): the device once, then the ports.
  const [device] = names[0]!.split(' › ');
  return names.every((n) => n.startsWith(`${device} › `)) ? `${device} › ${names.map((n) => n.slice(device!.length + 3)).join(', ')}` : names.join(', ');
}

export function cableHeading(cable: ApiObject): DetailTitle | null {
  const a = endText(cable.a_terminations);
  const b = endText(cable.b_terminations);
  const label = typeof cable.label === 'string' ? cable.label : '';
  const number = cable.numid ? `#${String(cable.numid)}` : '';
  if (!a || !b) return label ? { title: label, subtitle: number || undefined } : null;
  return { title: `${a} ⇢ ${b}`, subtitle: [label ? `Label ${label}` : '', number].filter(Boolean).join(' · ') || undefined };
}
