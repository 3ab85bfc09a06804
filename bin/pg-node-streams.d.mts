import type { Plugin } from 'esbuild';
export declare const pgNodeStreams: Plugin;
