// The template editor: a plain <textarea> (so typing, selection, undo and screen readers behave as in any text
// field) laid over a highlighted copy of the same text, with line numbers and the line of a server error marked.
// No editor library: this keeps the editor's chunk a few kB.
import { useMemo } from 'react';
import { tokenize, type Token, type TokenKind } from './highlight.ts';

const COLOURS: Record<TokenKind, string> = {
  text: 'text-slate-900',
  delim: 'text-fuchsia-700 font-semibold',
  comment: 'text-slate-400 italic',
  string: 'text-green-700',
  number: 'text-amber-700',
  keyword: 'text-sky-700 font-semibold',
  operator: 'text-slate-500',
  name: 'text-indigo-800',
};

/** Tokens grouped by line, a token that spans lines being cut at each newline. */
function linesOf(tokens: Token[]): Token[][] {
  const lines: Token[][] = [[]];
  for (const t of tokens) {
    const parts = t.text.split('\n');
    parts.forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part) lines[lines.length - 1]!.push({ kind: t.kind, text: part });
    });
  }
  return lines;
}

export function CodeEditor({ id, value, onChange, errorLine, invalid, describedBy, readOnly }: {
  id: string;
  value: string;
  onChange?: (v: string) => void;
  /** 1-based line to mark (from a `line N:` error), or null. */
  errorLine: number | null;
  invalid?: boolean;
  describedBy?: string;
  readOnly?: boolean;
}) {
  const lines = useMemo(() => linesOf(tokenize(value)), [value]);
  const widest = useMemo(() => lines.reduce((w, l) => Math.max(w, l.reduce((n, t) => n + t.text.length, 0)), 0), [lines]);
  return (
    <div className={`max-h-[60vh] min-h-48 overflow-auto rounded-md border bg-white font-mono text-[13px] leading-5 ${invalid ? 'border-red-500' : 'border-slate-300'}`} data-testid="code-editor">
      <div className="flex min-w-full" style={{ width: 'max-content' }}>
        <div className="sticky left-0 z-10 border-r border-slate-200 bg-slate-50 py-2 text-right text-slate-400 select-none" aria-hidden="true">
          {lines.map((_, i) => (
            <div key={i} className={`px-2 ${errorLine === i + 1 ? 'bg-red-100 font-semibold text-red-700' : ''}`} data-error-line={errorLine === i + 1 || undefined}>
              {errorLine === i + 1 ? '▶ ' : ''}
              {i + 1}
            </div>
          ))}
        </div>
        <div className="relative flex-1" style={{ minWidth: `calc(${widest + 2}ch + 1rem)` }}>
          <pre className="pointer-events-none m-0 py-2 whitespace-pre" aria-hidden="true">
            {lines.map((line, i) => (
              <div key={i} className={`px-2 ${errorLine === i + 1 ? 'bg-red-50' : ''}`}>
                {line.length === 0 ? '\u200b' : line.map((t, j) => (
                  <span key={j} className={COLOURS[t.kind]}>
                    {t.text}
                  </span>
                ))}
              </div>
            ))}
          </pre>
          <textarea
            id={id}
            value={value}
            readOnly={readOnly}
            onChange={(e) => onChange?.(e.target.value)}
            wrap="off"
            spellCheck={false}
            autoCapitalize="off"
            autoComplete="off"
            aria-invalid={invalid || undefined}
            aria-describedby={describedBy}
            className="absolute inset-0 m-0 resize-none overflow-hidden bg-transparent px-2 py-2 font-mono text-[13px] leading-5 whitespace-pre text-transparent caret-slate-900 outline-none selection:bg-sky-200/70"
          />
        </div>
      </div>
    </div>
  );
}
