// The Checks tab of a service: its check assignments and their states.
import type { DetailTabProps } from '../../app/extensions.ts';
import { ServiceChecks } from './CheckStates.tsx';

export default function ChecksTab({ object }: DetailTabProps) {
  return (
    <section className="rounded-lg border border-slate-200 bg-white p-4" aria-label="Checks of this service">
      <ServiceChecks serviceId={object.id} />
    </section>
  );
}
