// Builds web/ into web/dist. Every build gets an id: it is compiled into the app and written to
// dist/build-id.json, which open tabs poll to notice that a newer build is being served.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { reportFirstPageSize } from './build/first-page-size.ts';
import { webSourcesHash } from '../src/system/web-sources.ts';

const buildId = `${new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-${randomBytes(4).toString('hex')}`;

function buildIdFile(): Plugin {
  return {
    name: 'cairn-build-id',
    apply: 'build',
    generateBundle() {
      // `sources` lets `cairn maintenance collectstatic` see whether this build is current.
      const sources = webSourcesHash(fileURLToPath(new URL('..', import.meta.url)));
      this.emitFile({ type: 'asset', fileName: 'build-id.json', source: JSON.stringify({ build_id: buildId, sources }) + '\n' });
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  define: { __CAIRN_BUILD_ID__: JSON.stringify(buildId) },
  plugins: [react(), tailwindcss(), buildIdFile(), reportFirstPageSize()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    chunkSizeWarningLimit: 600,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
