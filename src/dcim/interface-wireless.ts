// An interface's radio fields (NetBox's rf_role, rf_channel, rf_channel_frequency, rf_channel_width, tx_power and
// wireless_lans), and their rules: they belong to wireless interfaces only, and a channel sets its frequency and
// width (sent values must agree with it; unsent ones are filled in after the write, as NetBox's form does).
import { sql } from 'kysely';
import type { FieldDef, HookArgs } from '../core/registry.ts';
import { callerTenant } from '../core/access.ts';
import { ErrorCollector } from '../core/errors.ts';
import { channelAttributes, WIRELESS_INTERFACE_TYPES } from './wireless-choices.ts';

type Row = Record<string, unknown>;

export const interfaceWirelessFields: Record<string, FieldDef> = {
  rf_role: { kind: 'choice', vocabulary: 'wireless_roles', nullable: true, label: 'Wireless role', help: 'Wireless interfaces only.' },
  rf_channel: { kind: 'choice', vocabulary: 'wireless_channels', nullable: true, label: 'Wireless channel', help: 'Wireless interfaces only; sets the frequency and width.' },
  rf_channel_frequency: { kind: 'decimal', nullable: true, min: 0, max: 99_999.999, label: 'Channel frequency (MHz)', help: 'Filled in from the channel when one is set.' },
  rf_channel_width: { kind: 'decimal', nullable: true, min: 0, max: 9_999.999, label: 'Channel width (MHz)', help: 'Filled in from the channel when one is set.' },
  tx_power: { kind: 'integer', nullable: true, min: -40, max: 127, label: 'Transmit power (dBm)' },
  wireless_lans: { kind: 'm2m', target: 'wireless.wirelesslan', label: 'Wireless LANs', through: { table: 'interface_wireless_lans', from: 'interface_id', to: 'wireless_lan_id' } },
};

const RADIO_KEYS = ['rf_role', 'rf_channel', 'rf_channel_frequency', 'rf_channel_width', 'tx_power'] as const;

function merged(input: Row, existing: Row | null, key: string): unknown {
  return key in input ? input[key] ?? null : existing?.[key] ?? null;
}

/** Interface validate: radio fields on a wireless interface only; a sent frequency or width agrees with the channel. */
export function checkInterfaceWireless(input: Row, existing: Row | null): void {
  const touched = [...RADIO_KEYS, 'type', 'wireless_lans'].some((k) => k in input);
  if (!touched) return;
  const type = String(merged(input, existing, 'type') ?? '');
  const errors = new ErrorCollector();
  if (!WIRELESS_INTERFACE_TYPES.has(type)) {
    for (const key of RADIO_KEYS) {
      if (merged(input, existing, key) !== null) errors.add(key, `Only wireless interfaces (802.11, LTE, 5G) have this; this one is ${type}: clear it or change the type.`);
    }
    if (Array.isArray(input.wireless_lans) && input.wireless_lans.length) errors.add('wireless_lans', `Only wireless interfaces join wireless LANs; this one is ${type}.`);
    errors.throwIfAny();
    return;
  }
  const channel = merged(input, existing, 'rf_channel');
  const attrs = typeof channel === 'string' ? channelAttributes(channel) : null;
  if (attrs) {
    const pairs = [['rf_channel_frequency', attrs.frequency], ['rf_channel_width', attrs.width]] as const;
    for (const [key, value] of pairs) {
      const sent = input[key];
      if (sent !== undefined && sent !== null && Number(sent) !== value) errors.add(key, `Channel ${String(channel)} is ${value} MHz; leave this empty or send ${value}.`);
    }
  }
  errors.throwIfAny();
}

/** After a write: a channel's frequency and width, filled in where unset (the row shown and logged gets them too). */
export async function fillChannelAttributes({ tx, ctx, rows }: HookArgs & { rows: Row[] }): Promise<void> {
  const ids = rows.filter((r) => r.rf_channel !== null && r.rf_channel !== undefined && (r.rf_channel_frequency === null || r.rf_channel_width === null)).map((r) => String(r.id));
  if (ids.length === 0) return;
  const { rows: filled } = await sql<Row>`UPDATE interfaces SET
      rf_channel_frequency = coalesce(rf_channel_frequency, split_part(rf_channel, '-', 3)::numeric),
      rf_channel_width = coalesce(rf_channel_width, split_part(rf_channel, '-', 4)::numeric)
    WHERE id = ANY(${ids}::uuid[]) AND ${callerTenant(ctx)} RETURNING id, rf_channel_frequency, rf_channel_width`.execute(tx);
  const byId = new Map(filled.map((f) => [String(f.id), f]));
  for (const r of rows) {
    const f = byId.get(String(r.id));
    if (f) Object.assign(r, { rf_channel_frequency: f.rf_channel_frequency, rf_channel_width: f.rf_channel_width });
  }
}
