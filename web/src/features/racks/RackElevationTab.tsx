// The Elevation tab of a rack: its front and rear drawn side by side as SVG, top unit first (or U1 first for a
// rack numbered top down). A device fills the units it takes and links to its page; a full-depth device mounted
// on the other face shows, lighter, on this one too; free units stay visible as empty slots, and units a rack
// reservation holds with no device in them are drawn hatched amber with what they are held for and by whom. Reads
// /api/racks/<id>/elevation/ (one call per face), so the page and a script see the same units.
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

const UNIT_H = 22;
const LABEL_W = 44;
const SLOT_W = 220;
const FACE_LABEL: Record<Face, string> = { front: 'Front', rear: 'Rear' };

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

function Elevation({ face, units }: { face: Face; units: Unit[] }) {
  const navigate = useNavigate();
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
          <text key={u.id} x={LABEL_W - 6} y={i * UNIT_H + UNIT_H / 2} textAnchor="end" dominantBaseline="central" fontSize={11} fill="#64748b">
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
                <text x={LABEL_W + SLOT_W / 2} y={y + h / 2} textAnchor="middle" dominantBaseline="central" fontSize={11} fill="#78350f">
                  {truncate(`Reserved${r.description ? `: ${r.description}` : ''}${r.user ? ` · ${r.user}` : ''}`, 34)}
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
          return (
            <a
              key={`${device.id}-${b.top}`}
              href={to}
              data-device={device.display}
              aria-label={`${device.display}, ${span}${throughDepth ? `, mounted on the ${device.face}` : ''}`}
              onClick={(e) => {
                if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
                e.preventDefault();
                void navigate({ to });
              }}
              className="cursor-pointer focus:outline-none [&:focus>rect]:stroke-sky-500 [&:focus>rect]:stroke-[3px] [&:hover>rect]:fill-sky-200"
            >
              <title>{`${device.display} · ${span}${throughDepth ? ` · mounted on the ${device.face}` : ''}`}</title>
              <rect x={LABEL_W + 3} y={y + 2} width={SLOT_W - 6} height={h - 4} rx={3} fill={throughDepth ? '#e2e8f0' : '#bae6fd'} stroke={throughDepth ? '#94a3b8' : '#0369a1'} strokeWidth={1.5} />
              <text x={LABEL_W + SLOT_W / 2} y={y + h / 2} textAnchor="middle" dominantBaseline="central" fontSize={12} fontWeight={throughDepth ? 400 : 600} fill={throughDepth ? '#475569' : '#0c4a6e'}>
                {device.display}
                {throughDepth ? ` (${device.face})` : ''}
              </text>
            </a>
          );
        })}
      </svg>
    </figure>
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

export default function RackElevationTab({ object }: DetailTabProps) {
  const elevation = useQuery({
    queryKey: ['rack-elevation', object.id],
    queryFn: async () => {
      const [front, rear] = await Promise.all((['front', 'rear'] as const).map((face) => get<Page<Unit>>(`/api/racks/${object.id}/elevation/`, { face })));
      return { front: front!.results, rear: rear!.results };
    },
  });
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
      <p className="mt-3 text-xs text-slate-500">
        Click a device or a reservation to open it. Lighter blocks are full-depth devices mounted on the other face; hatched amber units are reserved.
      </p>
      <Unmounted rackId={object.id} />
    </div>
  );
}
