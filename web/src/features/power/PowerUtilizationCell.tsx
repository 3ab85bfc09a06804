// A feed's, panel's or rack's power utilisation as an engineer reads it: "1,100 W of 5,888 W" beside a meter,
// rather than the JSON object the API answers.
import type { CellRendererProps } from '../../app/extensions.ts';
import { Value } from '../../components/Value.tsx';

interface PowerUtilization {
  allocated_w: number;
  available_w: number;
  percent: number;
  legs?: Array<{ leg: string; allocated_w: number; percent: number }>;
}

function isUtilization(v: unknown): v is PowerUtilization {
  return typeof v === 'object' && v !== null && 'allocated_w' in v && 'available_w' in v && 'percent' in v;
}

const watts = (n: number) => `${n.toLocaleString('en-US')} W`;

export function PowerUtilizationCell({ value }: CellRendererProps) {
  if (!isUtilization(value)) return <span className="text-slate-400">No power feeds</span>;
  return (
    <span className="inline-flex flex-wrap items-center gap-x-3" data-power-utilization>
      <Value value={value.percent} kind="percent" />
      <span className="text-slate-600 tabular-nums">
        {watts(value.allocated_w)} of {watts(value.available_w)}
      </span>
      {value.legs?.length ? (
        <span className="text-xs text-slate-500 tabular-nums" data-power-legs>
          {value.legs.map((l) => `leg ${l.leg} ${watts(l.allocated_w)} (${l.percent} %)`).join(' · ')}
        </span>
      ) : null}
    </span>
  );
}
