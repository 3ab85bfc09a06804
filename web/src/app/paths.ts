// The UI addresses of a model's list, an object and its editor: kept apart from the route tree so any component
// can link without importing the pages.

/** A model whose objects are written in a page of its own rather than the generic form (one editor per model). */
export interface OwnEditor {
  create: string;
  edit: (id: string) => string;
}

const ownEditors = new Map<string, OwnEditor>();

/** Sends every create and edit link of `model` (and the generic form's addresses) to the model's own editor. */
export function registerOwnEditor(model: string, editor: OwnEditor): void {
  ownEditors.set(model, editor);
}

export function ownEditorOf(model: string): OwnEditor | undefined {
  return ownEditors.get(model);
}

/** The UI address of a model's list, an object, or its editor. */
export const paths = {
  list: (model: string) => `/objects/${model}`,
  detail: (model: string, id: string) => `/objects/${model}/${id}`,
  edit: (model: string, id: string) => ownEditors.get(model)?.edit(id) ?? `/objects/${model}/${id}/edit`,
  create: (model: string) => ownEditors.get(model)?.create ?? `/objects/${model}/new`,
};
