// Circuit terminations are cable ends: an interface or a patch panel port is cabled to a circuit's A (or Z)
// termination, and a trace passes through the circuit to the other termination and on across its cable. Shown as
// "CID123 › Side A" in traces, link peers and cable columns.
import { sql } from 'kysely';
import { registerCableEnd } from '../dcim/cable-ends.ts';

registerCableEnd({
  type: 'circuits.circuittermination',
  table: 'circuit_terminations',
  parent: { model: 'circuits.circuit', table: 'circuits', column: 'circuit_id', nameColumn: 'cid' },
  columns: { name: `'Side ' || x.term_side`, name_natural: 'x.term_side', type: null },
  // A trace that cannot cross the circuit (no far termination, or the far one is on a provider network, where
  // NetBox ends the path) ends complete at the termination it reached.
  endpoint: true,
  passThrough: {
    type: 'circuits.circuittermination',
    next: (far, mine) => sql`SELECT ct.id FROM circuit_terminations cm
      JOIN circuit_terminations ct ON ct.circuit_id = cm.circuit_id AND ct.term_side <> cm.term_side AND ${mine('ct')}
      WHERE cm.id = ${far} AND ${mine('cm')} AND ct.provider_network_id IS NULL`,
  },
  // NetBox: a termination on a provider network takes no cable (the path ends in the network).
  uncableable: { when: 'x.provider_network_id IS NOT NULL', reason: 'is on a provider network and takes no cable: the circuit ends in the provider\'s network.' },
  // NetBox's COMPATIBLE_TERMINATION_TYPES for circuits.circuittermination.
  compatible: ['dcim.interface', 'dcim.frontport', 'dcim.rearport', 'circuits.circuittermination'],
});
