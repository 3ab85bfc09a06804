// The engine's progress lines, on the terminal as they happen (the journal keeps the same steps).
export function printLine(line: string): void {
  process.stdout.write(`${line}\n`);
}
