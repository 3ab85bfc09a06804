// NetBox's circuits app: providers with their accounts and networks, circuit types, circuits and their two
// terminations (A and Z). A termination names what it ends on NetBox 4.2's way (termination_type +
// termination_id: a site, a location or a provider network); the three generated columns below give each kind a
// real foreign key, so the database keeps the reference valid and a provider network (or site, location) in use
// cannot be deleted. Circuits take NetBox's statuses: the tenants' catalogs gain Provisioning, Deprovisioning and
// Decommissioned, and Active, Planned, Offline become available to circuits.
import { sql, type Kysely } from 'kysely';

const audit = sql`created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()`;
const base = sql`id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE`;
const CIRCUIT = 'circuits.circuit';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE providers (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL,
      description varchar(200) NOT NULL DEFAULT '', comments text NOT NULL DEFAULT '',
      custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    )`.execute(db);
  await sql`CREATE INDEX providers_order_idx ON providers (tenant_id, name, id)`.execute(db);

  await sql`CREATE TABLE provider_accounts (
      ${base},
      provider_id uuid NOT NULL REFERENCES providers(id) ON DELETE RESTRICT,
      name varchar(100) NOT NULL DEFAULT '', account varchar(100) NOT NULL,
      description varchar(200) NOT NULL DEFAULT '', comments text NOT NULL DEFAULT '',
      custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, provider_id, account)
    )`.execute(db);
  // NetBox: a name, when given, is unique per provider too.
  await sql`CREATE UNIQUE INDEX provider_accounts_name_key ON provider_accounts (tenant_id, provider_id, name) WHERE name <> ''`.execute(db);
  await sql`CREATE INDEX provider_accounts_order_idx ON provider_accounts (tenant_id, provider_id, account, id)`.execute(db);
  await sql`CREATE INDEX provider_accounts_provider_idx ON provider_accounts (provider_id)`.execute(db);

  await sql`CREATE TABLE provider_networks (
      ${base},
      provider_id uuid NOT NULL REFERENCES providers(id) ON DELETE RESTRICT,
      name varchar(100) NOT NULL, service_id varchar(100) NOT NULL DEFAULT '',
      description varchar(200) NOT NULL DEFAULT '', comments text NOT NULL DEFAULT '',
      custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, provider_id, name)
    )`.execute(db);
  await sql`CREATE INDEX provider_networks_order_idx ON provider_networks (tenant_id, provider_id, name, id)`.execute(db);
  await sql`CREATE INDEX provider_networks_provider_idx ON provider_networks (provider_id)`.execute(db);

  await sql`CREATE TABLE circuit_types (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL, color varchar(6),
      description varchar(200) NOT NULL DEFAULT '', custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    )`.execute(db);
  await sql`CREATE INDEX circuit_types_order_idx ON circuit_types (tenant_id, name, id)`.execute(db);

  await sql`CREATE TABLE circuits (
      ${base},
      cid varchar(100) NOT NULL,
      cid_natural text GENERATED ALWAYS AS (cairn_natural_key(cid)) STORED,
      provider_id uuid NOT NULL REFERENCES providers(id) ON DELETE RESTRICT,
      provider_account_id uuid REFERENCES provider_accounts(id) ON DELETE RESTRICT,
      type_id uuid NOT NULL REFERENCES circuit_types(id) ON DELETE RESTRICT,
      status_id uuid REFERENCES statuses(id) ON DELETE RESTRICT,
      owner_id uuid REFERENCES owners(id) ON DELETE RESTRICT,
      install_date date, termination_date date, commit_rate integer CHECK (commit_rate >= 0),
      description varchar(200) NOT NULL DEFAULT '', comments text NOT NULL DEFAULT '',
      custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, provider_id, cid)
    )`.execute(db);
  await sql`CREATE INDEX circuits_order_idx ON circuits (tenant_id, provider_id, cid_natural, id)`.execute(db);
  await sql`CREATE INDEX circuits_provider_idx ON circuits (provider_id)`.execute(db);
  await sql`CREATE INDEX circuits_provider_account_idx ON circuits (provider_account_id) WHERE provider_account_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX circuits_type_idx ON circuits (type_id)`.execute(db);
  await sql`CREATE INDEX circuits_status_idx ON circuits (status_id) WHERE status_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX circuits_owner_idx ON circuits (owner_id) WHERE owner_id IS NOT NULL`.execute(db);

  await sql`CREATE TABLE circuit_terminations (
      ${base},
      circuit_id uuid NOT NULL REFERENCES circuits(id) ON DELETE CASCADE,
      term_side varchar(1) NOT NULL CHECK (term_side IN ('A', 'Z')),
      termination_type varchar(50) NOT NULL CHECK (termination_type IN ('dcim.site', 'dcim.location', 'circuits.providernetwork')),
      termination_id uuid NOT NULL,
      site_id uuid GENERATED ALWAYS AS (CASE WHEN termination_type = 'dcim.site' THEN termination_id END) STORED
        REFERENCES sites(id) ON DELETE RESTRICT,
      location_id uuid GENERATED ALWAYS AS (CASE WHEN termination_type = 'dcim.location' THEN termination_id END) STORED
        REFERENCES locations(id) ON DELETE RESTRICT,
      provider_network_id uuid GENERATED ALWAYS AS (CASE WHEN termination_type = 'circuits.providernetwork' THEN termination_id END) STORED
        REFERENCES provider_networks(id) ON DELETE RESTRICT,
      port_speed integer CHECK (port_speed >= 0), upstream_speed integer CHECK (upstream_speed >= 0),
      xconnect_id varchar(50) NOT NULL DEFAULT '', pp_info varchar(100) NOT NULL DEFAULT '',
      description varchar(200) NOT NULL DEFAULT '', mark_connected boolean NOT NULL DEFAULT false,
      custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, circuit_id, term_side)
    )`.execute(db);
  await sql`CREATE INDEX circuit_terminations_order_idx ON circuit_terminations (tenant_id, circuit_id, term_side, id)`.execute(db);
  await sql`CREATE INDEX circuit_terminations_circuit_idx ON circuit_terminations (circuit_id)`.execute(db);
  await sql`CREATE INDEX circuit_terminations_site_idx ON circuit_terminations (site_id) WHERE site_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX circuit_terminations_location_idx ON circuit_terminations (location_id) WHERE location_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX circuit_terminations_provider_network_idx ON circuit_terminations (provider_network_id) WHERE provider_network_id IS NOT NULL`.execute(db);

  // Statuses: NetBox's circuit statuses in every existing tenant's catalog (new tenants get them from
  // DEFAULT_STATUSES). Planned, Offline, Active exist already: they become available to circuits, Active their
  // default where the tenant has none.
  await sql`UPDATE statuses SET available_to = ARRAY(SELECT DISTINCT unnest(available_to || ARRAY[${CIRCUIT}]::text[]) ORDER BY 1)
    WHERE slug IN ('active', 'planned', 'offline')`.execute(db);
  await sql`UPDATE statuses SET default_for = ARRAY(SELECT DISTINCT unnest(default_for || ARRAY[${CIRCUIT}]::text[]) ORDER BY 1)
    WHERE slug = 'active' AND NOT EXISTS (SELECT 1 FROM statuses o WHERE o.tenant_id = statuses.tenant_id AND ${CIRCUIT} = ANY(o.default_for))`.execute(db);
  for (const s of [
    { name: 'Provisioning', slug: 'provisioning', color: '2196f3' },
    { name: 'Deprovisioning', slug: 'deprovisioning', color: 'ffc107' },
    { name: 'Decommissioned', slug: 'decommissioned', color: '9e9e9e' },
  ]) {
    // A tenant that already has a status of that name or slug keeps its own, made available to circuits.
    await sql`UPDATE statuses SET available_to = ARRAY(SELECT DISTINCT unnest(available_to || ARRAY[${CIRCUIT}]::text[]) ORDER BY 1)
      WHERE slug = ${s.slug} OR name = ${s.name}`.execute(db);
    await sql`WITH need AS (
        SELECT t.id FROM tenants t WHERE NOT EXISTS (SELECT 1 FROM statuses x WHERE x.tenant_id = t.id AND (x.slug = ${s.slug} OR x.name = ${s.name}))
      ), numbered AS (
        INSERT INTO numid_counters (scope, table_name, last) SELECT id::text, 'statuses', 1 FROM need
        ON CONFLICT (scope, table_name) DO UPDATE SET last = numid_counters.last + 1 RETURNING scope, last
      )
      INSERT INTO statuses (id, numid, tenant_id, name, slug, color, available_to, default_for)
      SELECT gen_random_uuid(), n.last, n.scope::uuid, ${s.name}, ${s.slug}, ${s.color}, ARRAY[${CIRCUIT}]::text[], ARRAY[]::text[]
      FROM numbered n`.execute(db);
  }
}
