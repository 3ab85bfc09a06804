// The Elevation tab of a rack: its front and rear drawn side by side as SVG, top unit first (or U1 first for a
// rack numbered top down). A device fills the units it takes in its role's colour and links to its page; a full-depth device mounted
// on the other face shows, lighter, on this one too; free units stay visible as empty slots, and units a rack
// reservation holds with no device in them are drawn hatched amber with what they are held for and by whom. Reads
// /api/racks/<id>/elevation/ (one call per face), so the page and a script see the same units. A device's page
// draws the same elevations, smaller, with the device outlined (DeviceRackPanel.tsx).
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { get } from '../../api/client.ts';
import type { ApiObject, Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { Empty, ErrorState, Loading } from '../../components/states.tsx';

type Face = 'front' | 'rear';

interface MountedDevice extends ApiObject {
  face: Face;
  position: number;
  u_height: number;
  is_full_depth: boolean;
  /** Null when the caller may not view roles: the device is drawn in the neutral colour. */
  role?: (ApiObject & { color: string }) | null;
}

interface Reservation extends ApiObject {
  description: string;
  user: string | null;
}

interface Unit {
  id: number;
  name: string;
  face: Face;
  occupied: boolean;
  device: MountedDevice | null;
  reservation?: Reservation | null;
}

/** A run of units drawn as one block: a device over its height, a run of one reservation's free units, or a free unit. */
interface Block {
  top: number;
  units: Unit[];
  device: MountedDevice | null;
  reservation: Reservation | null;
}

/** Full size on the rack's page; compact beside a device's fields. */
const SIZES = {
  full: { unit: 22, label: 44, slot: 220, font: 12, chars: 34 },
  compact: { unit: 13, label: 34, slot: 168, font: 9, chars: 30 },
} as const;
const FACE_LABEL: Record<Face, string> = { front: 'Front', rear: 'Rear' };
const NEUTRAL = 'bae6fd';

/** A role colour as six hex digits, or the neutral fill when the role is unknown or the colour is not one. */
function fillOf(device: MountedDevice): string {
  const c = device.role?.color ?? '';
  return /^[0-9a-f]{6}$/i.test(c) ? c : NEUTRAL;
}

/** Dark text on light fills, white on dark ones (relative luminance, as WCAG computes it). */
function textOn(hex: string): string {
  const [r, g, b] = [0, 2, 4].map((i) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b! > 0.35 ? '#0f172a' : '#ffffff';
}

/** Text cut to fit a slot, with an ellipsis; the full text is in the block's title. */
function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function blocksOf(units: Unit[]): Block[] {
  const out: Block[] = [];
  units.forEach((u, i) => {
    const last = out[out.length - 1];
    // A device hides the reservation under it; free reserved units of one reservation run together.
    const reservation = u.device ? null : (u.reservation ?? null);
    if (u.device && last?.device?.id === u.device.id) last.units.push(u);
    else if (reservation && !last?.device && last?.reservation?.id === reservation.id) last.units.push(u);
    else out.push({ top: i, units: [u], device: u.device, reservation });
  });
  return out;
}

/** "U10–U11" or "U10" for a run of units, lowest first. */
function spanOf(units: Unit[]): string {
  const ids = units.map((u) => u.id).sort((a, b) => a - b);
  return ids.length > 1 ? `U${ids[0]}–U${ids[ids.length - 1]}` : `U${ids[0]}`;
}

export function Elevation({ face, units, size = 'full', highlight }: { face: Face; units: Unit[]; size?: keyof typeof SIZES; highlight?: string }) {
  const navigate = useNavigate();
  const { unit: UNIT_H, label: LABEL_W, slot: SLOT_W, font, chars } = SIZES[size];
  const height = units.length * UNIT_H;
  const used = units.filter((u) => u.occupied).length;
  const title = `${FACE_LABEL[face]} elevation`;
  return (
    <figure className="flex flex-col items-start gap-2">
      <figcaption className="text-sm font-medium text-slate-700">
        {FACE_LABEL[face]} <span className="font-normal text-slate-500">· {used} of {units.length} units used</span>
      </figcaption>
      <svg role="img" aria-label={title} data-face={face} width={LABEL_W + SLOT_W + 2} height={height + 2} viewBox={`-1 -1 ${LABEL_W + SLOT_W + 2} ${height + 2}`} className="font-sans">
        <title>{title}</title>
        <defs>
          <pattern id={`reserved-hatch-${face}`} width={8} height={8} patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width={8} height={8} fill="#fef3c7" />
            <line x1={0} y1={0} x2={0} y2={8} stroke="#fcd34d" strokeWidth={3} />
          </pattern>
        </defs>
        <rect x={LABEL_W} y={0} width={SLOT_W} height={height} fill="#f8fafc" stroke="#334155" strokeWidth={2} />
        {units.map((u, i) => (
          <text key={u.id} x={LABEL_W - 6} y={i * UNIT_H + UNIT_H / 2} textAnchor="end" dominantBaseline="central" fontSize={font - 1} fill="#64748b">
            {u.name}
          </text>
        ))}
        {blocksOf(units).map((b) => {
          const y = b.top * UNIT_H;
          const h = b.units.length * UNIT_H;
          if (!b.device && b.reservation) {
            const r = b.reservation;
            const to = paths.detail('dcim.rackreservation', r.id);
            const what = `Reserved ${spanOf(b.units)}${r.description ? `: ${r.description}` : ''}${r.user ? ` (${r.user})` : ''}`;
            return (
              <a
                key={`reserved-${b.units[0]!.id}`}
                href={to}
                data-reservation={r.id}
                aria-label={what}
                onClick={(e) => {
                  if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
                  e.preventDefault();
                  void navigate({ to });
                }}
                className="cursor-pointer focus:outline-none [&:focus>rect]:stroke-sky-500 [&:focus>rect]:stroke-[3px] [&:hover>rect]:fill-amber-200"
              >
                <title>{what}</title>
                <rect x={LABEL_W + 3} y={y + 2} width={SLOT_W - 6} height={h - 4} rx={2} fill={`url(#reserved-hatch-${face})`} stroke="#b45309" strokeWidth={1.5} strokeDasharray="4 2" />
                <text x={LABEL_W + SLOT_W / 2} y={y + h / 2} textAnchor="middle" dominantBaseline="central" fontSize={font - 1} fill="#78350f">
                  {truncate(`Reserved${r.description ? `: ${r.description}` : ''}${r.user ? ` · ${r.user}` : ''}`, chars)}
                </text>
              </a>
            );
          }
          if (!b.device) {
            return (
              <rect key={`free-${b.units[0]!.id}`} data-unit={b.units[0]!.id} x={LABEL_W + 3} y={y + 2} width={SLOT_W - 6} height={h - 4} rx={2} fill="white" stroke="#cbd5e1" strokeDasharray="3 3">
                <title>{`${b.units[0]!.name} free`}</title>
              </rect>
            );
          }
          const device = b.device;
          const to = paths.detail('dcim.device', device.id);
          // Mounted on the other face: it takes these units through the rack's depth, drawn lighter.
          const throughDepth = device.face !== face;
          const span = device.u_height > 1 ? `U${device.position}–U${device.position + device.u_height - 1}` : `U${device.position}`;
          const fill = fillOf(device);
          const current = device.id === highlight;
          const role = device.role ? `, ${device.role.display}` : '';
          return (
            <a
              key={`${device.id}-${b.top}`}
              href={to}
              data-device={device.display}
              data-role-color={fill}
              aria-current={current ? 'true' : undefined}
              aria-label={`${device.display}${role}, ${span}${throughDepth ? `, mounted on the ${device.face}` : ''}${current ? ' (this device)' : ''}`}
              onClick={(e) => {
                if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
                e.preventDefault();
                void navigate({ to });
              }}
              className="cursor-pointer focus:outline-none [&:focus>rect]:stroke-sky-500 [&:focus>rect]:stroke-[3px] [&:hover>rect]:opacity-80"
            >
              <title>{`${device.display}${device.role ? ` · ${device.role.display}` : ''} · ${span}${throughDepth ? ` · mounted on the ${device.face}` : ''}`}</title>
              {/* Through the depth from the other face: the role's colour, faded, with a dashed edge. */}
              <rect
                x={LABEL_W + 3}
                y={y + 2}
                width={SLOT_W - 6}
                height={h - 4}
                rx={3}
                fill={`#${fill}`}
                fillOpacity={throughDepth ? 0.35 : 1}
                stroke={current ? '#0f172a' : throughDepth ? '#94a3b8' : '#334155'}
                strokeWidth={current ? 3 : 1}
                strokeDasharray={throughDepth && !current ? '4 2' : undefined}
              />
              <text x={LABEL_W + SLOT_W / 2} y={y + h / 2} textAnchor="middle" dominantBaseline="central" fontSize={font} fontWeight={throughDepth ? 400 : 600} fill={throughDepth ? '#334155' : textOn(fill)}>
                {truncate(`${current ? '▶ ' : ''}${device.display}${throughDepth ? ` (${device.face})` : ''}`, chars)}
              </text>
            </a>
          );
        })}
      </svg>
    </figure>
  );
}

/** The roles of the devices drawn, each with its colour, so the fills can be read. */
export function RoleLegend({ units }: { units: Unit[] }) {
  const roles = new Map<string, { display: string; color: string }>();
  for (const u of units) if (u.device?.role) roles.set(u.device.role.id, { display: u.device.role.display, color: fillOf(u.device) });
  if (roles.size === 0) return null;
  return (
    <ul aria-label="Device roles" className="flex flex-wrap gap-x-3 gap-y-1 text-xs text-slate-600">
      {[...roles.entries()]
        .sort((a, b) => a[1].display.localeCompare(b[1].display))
        .map(([id, r]) => (
          <li key={id} className="inline-flex items-center gap-1">
            <span className="size-3 rounded-sm border border-slate-400" style={{ backgroundColor: `#${r.color}` }} aria-hidden="true" />
            <Link className="hover:underline" to={paths.detail('dcim.devicerole', id)}>
              {r.display}
            </Link>
          </li>
        ))}
    </ul>
  );
}

/** Devices in the rack without a unit (0U power strips, or not mounted yet). */
function Unmounted({ rackId }: { rackId: string }) {
  const query = { rack_id: rackId, position__isnull: 'true', limit: 200 };
  const list = useQuery({ queryKey: ['list', '/api/devices/', query], queryFn: () => get<Page<ApiObject>>('/api/devices/', query) });
  if (!list.data?.results.length) return null;
  return (
    <section className="mt-6">
      <h3 className="text-sm font-medium text-slate-700">In the rack without a unit</h3>
      <ul className="mt-1 flex flex-wrap gap-x-4 text-sm">
        {list.data.results.map((d) => (
          <li key={d.id}>
            <Link className="text-sky-700 hover:underline" to={paths.detail('dcim.device', d.id)}>
              {d.display}
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Both faces of a rack's elevation (one call per face). */
export function useRackElevation(rackId: string | undefined) {
  return useQuery({
    queryKey: ['rack-elevation', rackId],
    queryFn: async () => {
      const [front, rear] = await Promise.all((['front', 'rear'] as const).map((face) => get<Page<Unit>>(`/api/racks/${rackId}/elevation/`, { face })));
      return { front: front!.results, rear: rear!.results };
    },
    enabled: !!rackId,
  });
}

export default function RackElevationTab({ object }: DetailTabProps) {
  const elevation = useRackElevation(object.id);
  if (elevation.isLoading) return <Loading label="Loading the elevation…" />;
  if (elevation.error) return <ErrorState error={elevation.error} retry={() => void elevation.refetch()} />;
  const data = elevation.data!;
  if (data.front.length === 0) return <Empty title="This rack has no units." />;
  return (
    <div>
      <div className="flex flex-wrap gap-10">
        <Elevation face="front" units={data.front} />
        <Elevation face="rear" units={data.rear} />
      </div>
      <div className="mt-3">
        <RoleLegend units={[...data.front, ...data.rear]} />
      </div>
      <p className="mt-2 text-xs text-slate-500">
        Click a device or a reservation to open it. Devices are filled with their role's colour; faded, dashed blocks are full-depth devices mounted on the other face; hatched amber units are reserved.
      </p>
      <Unmounted rackId={object.id} />
    </div>
  );
}
