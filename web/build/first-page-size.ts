// Prints (and checks) the JavaScript a browser must download for the first page: the entry chunk and the
// chunks it imports statically. Route pages are lazy chunks and are not counted. The figure is also written to
// dist/first-page-size.json so a test can read it.
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

export const FIRST_PAGE_LIMIT_BYTES = 500 * 1024;

interface ChunkLike {
  type: 'chunk';
  code: string;
  isEntry: boolean;
  imports: string[];
}

export function reportFirstPageSize(): Plugin {
  return {
    name: 'cairn-first-page-size',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = new Map<string, ChunkLike>();
      for (const [fileName, item] of Object.entries(bundle)) if (item.type === 'chunk') chunks.set(fileName, item as unknown as ChunkLike);
      const seen = new Set<string>();
      const visit = (fileName: string) => {
        if (seen.has(fileName)) return;
        seen.add(fileName);
        for (const dep of chunks.get(fileName)?.imports ?? []) visit(dep);
      };
      for (const [fileName, chunk] of chunks) if (chunk.isEntry) visit(fileName);
      let raw = 0;
      let gzipped = 0;
      for (const fileName of seen) {
        const code = chunks.get(fileName)!.code;
        raw += Buffer.byteLength(code);
        gzipped += gzipSync(code, { level: 9 }).length;
      }
      const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
      console.log(`First-page JavaScript: ${seen.size} chunks, ${kb(raw)} raw, ${kb(gzipped)} gzipped (limit ${kb(FIRST_PAGE_LIMIT_BYTES)}).`);
      if (gzipped > FIRST_PAGE_LIMIT_BYTES) this.error(`The first page ships ${kb(gzipped)} of gzipped JavaScript, over the ${kb(FIRST_PAGE_LIMIT_BYTES)} budget.`);
      this.emitFile({
        type: 'asset',
        fileName: 'first-page-size.json',
        source: JSON.stringify({ chunks: [...seen], raw_bytes: raw, gzip_bytes: gzipped, limit_bytes: FIRST_PAGE_LIMIT_BYTES }) + '\n',
      });
    },
  };
}
