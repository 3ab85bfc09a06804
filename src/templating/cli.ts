// Placeholder until the template engine lands: `cairn template render` is registered here.
import type { Command } from 'commander';
export function registerTemplateCommands(_program: Command): void {}
