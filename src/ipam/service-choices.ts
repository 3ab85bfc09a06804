// The layer-4 protocols of services: application service templates (ipam.servicetemplate) and the services of a
// device type (dcim.devicetypeservice), served by /api/dcim/choices/ as `service_protocols`, NetBox's values.
import { defineVocabulary } from '../core/vocabularies.ts';

defineVocabulary('service_protocols', [
  { value: 'tcp', label: 'TCP', group: 'Protocol' },
  { value: 'udp', label: 'UDP', group: 'Protocol' },
  { value: 'sctp', label: 'SCTP', group: 'Protocol' },
]);
