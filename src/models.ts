// Importing this module registers every model of every domain, in dependency order.
import { wireStatusFields } from './extras/statuses.ts';
import './core/models.ts';
import './extras/models.ts';
import './extras/custom-fields.ts';
import './organization/models.ts';
import './organization/owners.ts';
import './organization/site-groups.ts';
import './organization/contacts.ts';
import './dcim/models.ts';
import './dcim/rack-models.ts';
import './dcim/rack-reservation-models.ts';
import './circuits/models.ts';
import './ipam/models.ts';
import './virtualization/models.ts';
import './wireless/models.ts';
import './vpn/models.ts';
import './routing/models.ts';
import './ipam/asn-models.ts';
import './ipam/fhrp-models.ts';
import './ipam/service-template-model.ts';
import './ipam/vlan-translation-models.ts';
import './extras/webhooks.ts';
import './automation/target-model.ts';
import './dcim/credential-model.ts';
import './extras/webhook-models.ts';
import './automation/deploy-models.ts';
import './templating/models.ts';
import './templating/bundles.ts';
import './templating/bindings.ts';
import './lifecycle/models.ts';
import './compliance/models.ts';
import './monitoring/models.ts';
// After every model that can have contacts: deletes an object's contact assignments with it.
import './organization/contact-cleanup.ts';
// After every model carrying an owner: their ?owner_group= filter.
import './organization/owner-filters.ts';
// Keep last: installs the search-index hooks on every model imported above.
import './search/hooks.ts';
// Row counts of unfiltered lists: triggers on every tenant-scoped model's table, synced after migrations.
import './core/crud/row-counts.ts';

// Runs once every module above is evaluated (imports come first): every model's status field gets the catalog
// status's rules (available to the model, default on create), ahead of the model's own hooks.
wireStatusFields();
