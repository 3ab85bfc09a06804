#!/usr/bin/env node
// Runs a TypeScript entry file (benchmarks, scripts) with the same loader as the `cairn` command.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
register();
const [, , entry, ...rest] = process.argv;
process.argv = [process.argv[0], entry, ...rest];
await import(pathToFileURL(resolve(entry)).href);
