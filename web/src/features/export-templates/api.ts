// Shapes of the export-template answers this feature reads (src/templating/models.ts and routes.ts).
import type { ApiObject } from '../../api/types.ts';

export interface ExportTemplate extends ApiObject {
  name: string;
  object_type: string;
  description: string;
  template_code: string;
  mime_type: string;
  file_extension: string;
  as_attachment: boolean;
  target_path: string;
  line_count: number;
  created?: string;
  last_updated?: string;
}

export interface PreviewAnswer {
  output: string;
  count: number;
  truncated: boolean;
}

export const TEMPLATES_PATH = '/api/export-templates/';
export const renderUrl = (id: string) => `${TEMPLATES_PATH}${id}/render/`;
