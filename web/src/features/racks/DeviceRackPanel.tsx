// A device's place in its rack, on the device's Overview: the rack (with its site), the units and face it takes,
// and both faces of the rack's elevation drawn small with this device outlined, the rack elevation tab's own
// drawing (RackElevationTab.tsx) reading the same /api/racks/<id>/elevation/ answer. A device without a rack shows
// no panel; one in a rack without a unit says so.
import { Link } from '@tanstack/react-router';
import type { Brief } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { ErrorState, Loading } from '../../components/states.tsx';
import { Elevation, RoleLegend, useRackElevation } from './RackElevationTab.tsx';

export default function DeviceRackPanel({ object }: DetailTabProps) {
  const rack = (object.rack as Brief | null | undefined) ?? null;
  const elevation = useRackElevation(rack?.id);
  if (!rack) return null;
  const position = typeof object.position === 'number' ? object.position : null;
  const face = typeof object.face === 'string' ? object.face : null;
  // The device's own height is what the elevation draws it over.
  const mounted = elevation.data?.front.find((u) => u.device?.id === object.id)?.device ?? elevation.data?.rear.find((u) => u.device?.id === object.id)?.device;
  const span = position === null ? null : mounted && mounted.u_height > 1 ? `U${position}–U${position + mounted.u_height - 1}` : `U${position}`;
  return (
    <section aria-labelledby="overview-rack" className="self-start rounded-lg border border-slate-200 bg-white" data-testid="device-rack">
      <h2 id="overview-rack" className="flex items-baseline justify-between gap-2 border-b border-slate-200 px-4 py-2 font-semibold">
        <span>Rack</span>
        <Link to={paths.detail('dcim.rack', rack.id)} search={{ tab: 'elevation' }} className="text-sm font-normal text-sky-700 hover:underline">
          {rack.display}
        </Link>
      </h2>
      <div className="space-y-3 px-4 py-3">
        <p className="text-sm text-slate-700">
          {span ? (
            <>
              {span}, {face === 'rear' ? 'rear' : 'front'} face
            </>
          ) : (
            'In this rack without a unit (not drawn in the elevation).'
          )}
        </p>
        {elevation.isLoading ? <Loading label="Loading the rack…" /> : null}
        {elevation.error ? <ErrorState error={elevation.error} retry={() => void elevation.refetch()} /> : null}
        {elevation.data && elevation.data.front.length ? (
          <>
            <div className="flex flex-wrap gap-4 overflow-x-auto">
              <Elevation face="front" units={elevation.data.front} size="compact" highlight={object.id} />
              <Elevation face="rear" units={elevation.data.rear} size="compact" highlight={object.id} />
            </div>
            <RoleLegend units={[...elevation.data.front, ...elevation.data.rear]} />
          </>
        ) : null}
      </div>
    </section>
  );
}
