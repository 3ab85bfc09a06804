// IPAM in the UI: a prefix list shows how full each prefix is (the utilisation bar) without the user choosing the
// column first.
import { registerDefaultColumn } from '../../app/extensions.ts';

registerDefaultColumn('ipam.prefix', 'utilization');
