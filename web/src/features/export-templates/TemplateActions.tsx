// Header button on an export template's detail page: render the saved template (the server answers inline or as
// an attachment, as the template says). The page's Edit opens the source editor (registerOwnEditor).
import type { DetailTabProps } from '../../app/extensions.ts';
import { renderUrl, type ExportTemplate } from './api.ts';

const linkClass = 'rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-100';

export default function TemplateActions({ object }: DetailTabProps) {
  const t = object as ExportTemplate;
  return (
    <a href={renderUrl(t.id)} target={t.as_attachment ? undefined : '_blank'} rel="noreferrer" className={linkClass}>
      {t.as_attachment ? 'Render & download' : 'Render & open'}
    </a>
  );
}
