// Extension points for feature pages: detail-page tabs, detail-page actions, list cell renderers and
// navigation entries. A feature module calls these at import time (see web/README.md); the generic pages read
// them when they draw. Nothing here fetches data.
import type { ComponentType, LazyExoticComponent } from 'react';
import type { ApiObject, Me, ModelInfo } from '../api/types.ts';

export interface DetailTabProps {
  model: ModelInfo;
  object: ApiObject;
  me: Me;
}

export interface DetailTab {
  /** The `?tab=` value; unique per model. */
  id: string;
  label: string;
  /** A model name (`dcim.device`), a list of them, or '*' for every model. */
  models: string | string[];
  /** Lower comes first; Overview is 0, Journal 900, Change log 910. */
  order?: number;
  /** Hide the tab for some objects or callers. */
  visible?: (props: DetailTabProps) => boolean;
  component: ComponentType<DetailTabProps> | LazyExoticComponent<ComponentType<DetailTabProps>>;
}

export interface DetailAction {
  id: string;
  models: string | string[];
  order?: number;
  /** The action brings its own Edit (a dialog): the page's generic Edit link is left out, so there is one. */
  replacesEdit?: boolean;
  /** Drawn in the detail page header next to Edit/Delete (a button that opens its own dialog, say). */
  component: ComponentType<DetailTabProps> | LazyExoticComponent<ComponentType<DetailTabProps>>;
}

export interface CellRendererProps {
  row: ApiObject;
  value: unknown;
  /** In a list: the ordering and search it shows (a cell may draw differently when rows are not in their own order). */
  list?: { ordering?: string; q?: string };
}

export interface NavItem {
  /** A nav group label: an existing one ("Devices", "IPAM", …) or a new one. */
  group: string;
  label: string;
  to: string;
  order?: number;
  /** Shown only when this returns true (e.g. admins only). */
  visible?: (me: Me) => boolean;
  /** Drawn after the label (e.g. an update-available marker); keep it small, it is in the first chunk. */
  badge?: ComponentType;
}

const detailTabs: DetailTab[] = [];
const detailActions: DetailAction[] = [];
const cellRenderers = new Map<string, ComponentType<CellRendererProps>>();
const navItems: NavItem[] = [];

const applies = (models: string | string[], model: string) => models === '*' || models === model || (Array.isArray(models) && models.includes(model));

export function registerDetailTab(tab: DetailTab): void {
  detailTabs.push(tab);
}

export function registerDetailAction(action: DetailAction): void {
  detailActions.push(action);
}

/** Replaces how one column of one model's list (and Overview) is drawn, e.g. `dcim.platform` + `eol`. */
export function registerCellRenderer(model: string, key: string, component: ComponentType<CellRendererProps>): void {
  cellRenderers.set(`${model}:${key}`, component);
}

const defaultColumnKeys = new Map<string, string[]>();

/** Shows a column in a model's list by default (until the user saves a column choice of their own). */
export function registerDefaultColumn(model: string, key: string): void {
  defaultColumnKeys.set(model, [...(defaultColumnKeys.get(model) ?? []), key]);
}

export function defaultColumnsFor(model: string): string[] {
  return defaultColumnKeys.get(model) ?? [];
}

const hiddenColumnKeys = new Map<string, string[]>();

/** Leaves a column out of a model's default list columns (an id few read); the column picker still offers it. */
export function registerColumnHiddenByDefault(model: string, key: string): void {
  hiddenColumnKeys.set(model, [...(hiddenColumnKeys.get(model) ?? []), key]);
}

export function hiddenColumnsFor(model: string): string[] {
  return hiddenColumnKeys.get(model) ?? [];
}

const overviewHiddenKeys = new Map<string, string[]>();

/** Leaves a list column off the object's Overview, where other rows already say it (a device's primary IP). */
export function registerOverviewHidden(model: string, key: string): void {
  overviewHiddenKeys.set(model, [...(overviewHiddenKeys.get(model) ?? []), key]);
}

export function overviewHiddenFor(model: string): string[] {
  return overviewHiddenKeys.get(model) ?? [];
}

/** A detail page's heading for one model when its display is not what a reader wants (a cable: its two ends). */
export interface DetailTitle {
  title: string;
  subtitle?: string;
}
const detailTitles = new Map<string, (object: ApiObject) => DetailTitle | null>();

export function registerDetailTitle(model: string, title: (object: ApiObject) => DetailTitle | null): void {
  detailTitles.set(model, title);
}

/** The registered heading of an object, or null for the generic one (display, #number). */
export function detailTitleFor(model: string, object: ApiObject): DetailTitle | null {
  return detailTitles.get(model)?.(object) ?? null;
}

export function registerNavItem(item: NavItem): void {
  navItems.push(item);
}

export function detailTabsFor(props: DetailTabProps): DetailTab[] {
  return detailTabs.filter((t) => applies(t.models, props.model.model) && (t.visible?.(props) ?? true)).sort((a, b) => (a.order ?? 500) - (b.order ?? 500));
}

export function detailActionsFor(model: string): DetailAction[] {
  return detailActions.filter((a) => applies(a.models, model)).sort((a, b) => (a.order ?? 500) - (b.order ?? 500));
}

export function cellRendererFor(model: string, key: string): ComponentType<CellRendererProps> | undefined {
  return cellRenderers.get(`${model}:${key}`);
}

export function extraNavItems(me: Me): NavItem[] {
  return navItems.filter((i) => i.visible?.(me) ?? true).sort((a, b) => (a.order ?? 500) - (b.order ?? 500));
}
