#!/usr/bin/env node
// The `cairn` command: runs the TypeScript sources through tsx so a fresh clone needs no build step.
import { register } from 'tsx/esm/api';
register();
await import('../src/main.ts');
