// The result of a Run preview: the real row count, whether rows past the first 200 were left out, and the text.
import type { PreviewAnswer } from './api.ts';

export function PreviewPanel({ preview }: { preview: PreviewAnswer }) {
  return (
    <section aria-label="Preview" className="rounded-lg border border-slate-200 bg-white">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 px-4 py-2 text-sm">
        <h2 className="font-semibold">Preview</h2>
        <p data-testid="preview-count">
          {preview.count.toLocaleString()} {preview.count === 1 ? 'row' : 'rows'}
          {preview.truncated ? ' · showing the first 200' : ''}
        </p>
      </div>
      {preview.output === '' ? (
        <p className="px-4 py-3 text-sm text-slate-500">The template rendered no text.</p>
      ) : (
        <pre className="max-h-[50vh] overflow-auto px-4 py-3 font-mono text-[13px] leading-5" data-testid="preview-output">
          {preview.output}
        </pre>
      )}
    </section>
  );
}
