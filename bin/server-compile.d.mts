import type { BuildResult, Plugin } from 'esbuild';
export declare const RUNTIME_FILE_PACKAGES: string[];
export declare function refuseImportMeta(result: BuildResult): void;
export declare const pgNodeStreams: Plugin;
