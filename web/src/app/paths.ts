// The UI addresses of a model's list, an object and its editor: kept apart from the route tree so any component
// can link without importing the pages.
/** The UI address of a model's list, an object, or its editor. */
export const paths = {
  list: (model: string) => `/objects/${model}`,
  detail: (model: string, id: string) => `/objects/${model}/${id}`,
  edit: (model: string, id: string) => `/objects/${model}/${id}/edit`,
  create: (model: string) => `/objects/${model}/new`,
};
