// Where each part of a model's behaviour was registered. A model is defined in its domain's file, then other
// domains add to it (a hook, a list filter, a computed value, a cable end…) by registering, so its behaviour is
// spread over several files in the order src/models.ts imports them. Each registering function notes here what
// it registered; the file that called it is read from the stack, and `cairn models describe <model>` prints it.
//
// The stack is captured at registration and only formatted when asked for (formatting one, with source maps on,
// costs far more than capturing it, and nobody reads most of them).

export interface Registration {
  /** What was registered: 'definition', 'hook afterCreate', 'list filters', 'computed', 'cable end'… */
  what: string;
  /** The names it registered (fields, filter names, the hook's kind…). */
  names: string[];
  /** The file under src/ that registered it, e.g. `src/monitoring/models.ts`. */
  file: string;
}

interface Noted {
  what: string;
  names: string[];
  stack: Error;
}

const noted = new Map<string, Noted[]>();

/**
 * Notes a registration of `what` on `modelName`. Called by the registering function itself (defineModel,
 * addModelHook, registerCableEnd…), directly: the file reported is that function's caller.
 */
export function noteRegistration(modelName: string, what: string, names: string[]): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 4;
  const stack = new Error('registration');
  Error.stackTraceLimit = limit;
  const list = noted.get(modelName) ?? [];
  list.push({ what, names, stack });
  noted.set(modelName, list);
}

/** A stack line → `src/…/file.ts` (its own text when it names no file under src/). */
function sourcePath(line: string): string {
  const m = /(?:^|[/\\(\s])(src\/[^:)?\s]+\.tsx?)/.exec(line.replace(/\\/g, '/'));
  return m ? m[1]! : line.trim();
}

function registrant(entry: Noted): string {
  // Line 0 is the message; 1 is noteRegistration, 2 the registering function, 3 the one that called it.
  const line = (entry.stack.stack ?? '').split('\n')[3];
  return line ? sourcePath(line) : '(unknown)';
}

/** Everything registered on `modelName`, in registration order, with the file of each. */
export function registrationsOf(modelName: string): Registration[] {
  return (noted.get(modelName) ?? []).map((e) => ({ what: e.what, names: e.names, file: registrant(e) }));
}
