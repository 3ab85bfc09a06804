import type { BuildResult, Plugin } from 'esbuild';
export declare const RUNTIME_FILE_PACKAGES: string[];
export declare function refuseImportMeta(result: BuildResult): void;
export declare const pgNodeStreams: Plugin;
export declare function asciiComments(text: string, esbuild: typeof import('esbuild')): string;
