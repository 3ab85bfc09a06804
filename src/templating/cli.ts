// `cairn template render <file>`: renders a template against JSON data so users can try templates without a
// server. stdout carries exactly the rendered text (streamed, byte for byte); a template error goes to stderr
// with its line, and the exit code is 1.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';

interface RenderFlags {
  data?: string;
  trimBlocks?: boolean;
  lstripBlocks?: boolean;
  keepTrailingNewline?: boolean;
}

function writeOut(chunk: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(chunk, (err) => (err ? reject(err) : resolve()));
  });
}

export async function renderTemplateFile(file: string, flags: RenderFlags): Promise<number> {
  let source: string;
  let context: Record<string, unknown> = {};
  try {
    source = await readFile(file, 'utf8');
  } catch (err) {
    process.stderr.write(`cairn: cannot read template ${file}: ${(err as Error).message}\n`);
    return 1;
  }
  if (flags.data) {
    try {
      // Floats as Python's json.load reads them: {"x": 3.0} prints 3.0, as Jinja2 prints it.
      const { parsePythonJson } = await import('./py-json.ts');
      const parsed: unknown = parsePythonJson(await readFile(flags.data, 'utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.getPrototypeOf(parsed) !== Object.prototype) {
        process.stderr.write(`cairn: ${flags.data} must contain a JSON object\n`);
        return 1;
      }
      context = parsed as Record<string, unknown>;
    } catch (err) {
      process.stderr.write(`cairn: cannot read data ${flags.data}: ${(err as Error).message}\n`);
      return 1;
    }
  }
  // Loaded with the command, not with every `cairn` start (src/main.ts).
  const { TemplateError, createEnvironment } = await import('./engine/index.ts');
  const env = createEnvironment({
    trimBlocks: Boolean(flags.trimBlocks),
    lstripBlocks: Boolean(flags.lstripBlocks),
    keepTrailingNewline: Boolean(flags.keepTrailingNewline),
  });
  try {
    const template = env.compile(source, file);
    for await (const chunk of template.renderStream(context)) await writeOut(chunk);
    return 0;
  } catch (err) {
    if (err instanceof TemplateError) {
      process.stderr.write(`${err.describe()} (${err.kind})\n`);
      return 1;
    }
    throw err;
  }
}

export function registerTemplateCommands(program: Command): void {
  const template = program.command('template').description('Work with templates.');
  template
    .command('render <file>')
    .description('Render a template file against JSON data and print the result.')
    .option('--data <context.json>', 'JSON file with the template context (an object)')
    .option('--trim-blocks', 'remove the first newline after a block tag')
    .option('--lstrip-blocks', 'strip spaces and tabs before a block tag')
    .option('--keep-trailing-newline', "keep the template's final newline")
    .action(async (file: string, flags: RenderFlags) => {
      const code = await renderTemplateFile(file, flags);
      if (code !== 0) process.exitCode = code;
    });
}
