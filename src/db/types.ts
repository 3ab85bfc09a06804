// Kysely types of the core tables. Registry-driven model tables are read and written through the registry's
// typed field definitions (src/core/registry.ts) with explicit SQL, so they are not repeated here.
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface TenantsTable {
  id: string;
  numid: number;
  name: string;
  slug: string;
  description: string;
  created: Timestamp;
  last_updated: Timestamp;
}

export interface UsersTable {
  id: string;
  numid: number;
  username: string;
  email: string;
  password_hash: string;
  is_superuser: boolean;
  is_active: boolean;
  home_tenant_id: string | null;
  created: Timestamp;
  last_updated: Timestamp;
  last_login: Date | null;
}

export interface TokensTable {
  id: string;
  numid: number;
  user_id: string;
  tenant_id: string;
  key_hash: string;
  key_prefix: string;
  description: string;
  read_only: boolean;
  expires: Date | null;
  created: Timestamp;
  last_updated: Timestamp;
  last_used: Date | null;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  tenant_id: string | null;
  csrf_token: string;
  created: Timestamp;
  expires: Date;
}

export interface ObjectChangesTable {
  id: string;
  tenant_id: string | null;
  time: Timestamp;
  user_id: string | null;
  username: string;
  request_id: string;
  action: string;
  object_type: string;
  object_id: string;
  object_repr: string;
  before: unknown;
  after: unknown;
}

export interface SystemStateTable {
  key: string;
  value: unknown;
  updated: Timestamp;
}

export interface NumidCountersTable {
  scope: string;
  table_name: string;
  last: number;
}

export interface DB {
  tenants: TenantsTable;
  users: UsersTable;
  tokens: TokensTable;
  sessions: SessionsTable;
  object_changes: ObjectChangesTable;
  system_state: SystemStateTable;
  numid_counters: NumidCountersTable;
  tenant_memberships: { user_id: string; tenant_id: string };
  user_groups: { user_id: string; group_id: string };
  groups: { id: string; numid: number; name: string; description: string; builtin: boolean; created: Timestamp; last_updated: Timestamp };
  group_permissions: { id: string; numid: number; group_id: string; permission: string; created: Timestamp; last_updated: Timestamp };
  tagged_items: { tenant_id: string; tag_id: string; object_type: string; object_id: string };
  kysely_migration: { name: string; timestamp: string };
}
