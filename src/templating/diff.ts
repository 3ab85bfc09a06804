// A small unified diff (the `diff -u` text format) between the pushed and the rendered text of a config file.
// Line-based LCS via Myers' O(ND) algorithm, so two large, mostly equal configs diff quickly; hunks carry three
// lines of context. Lines are compared without their terminators.

type Op = { kind: ' ' | '-' | '+'; line: string };

function editScript(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  outer: for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[max + k - 1]! < v[max + k + 1]!) ? v[max + k + 1]! : v[max + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) (x++, y++);
      v[max + k] = x;
      if (x >= n && y >= m) break outer;
    }
  }
  // Walk the trace back from (n, m) to (0, 0): trace[d] holds v as it was before step d.
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = d === 0 ? 0 : k === -d || (k !== d && vd[max + k - 1]! < vd[max + k + 1]!) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : vd[max + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ kind: ' ', line: a[x]! });
    }
    if (d === 0) break;
    if (x === prevX) {
      y--;
      ops.push({ kind: '+', line: b[y]! });
    } else {
      x--;
      ops.push({ kind: '-', line: a[x]! });
    }
  }
  return ops.reverse();
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r\n|\n|\r/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `--- from` / `+++ to` and @@ hunks with 3 lines of context; '' when the texts have the same lines. */
export function unifiedDiff(before: string, after: string, fromFile: string, toFile: string, context = 3): string {
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = editScript(a, b);
  if (ops.every((o) => o.kind === ' ')) return '';
  const out: string[] = [`--- ${fromFile}`, `+++ ${toFile}`];
  // Positions of each op in a and b, to number the hunks.
  const pos: Array<{ ai: number; bi: number }> = [];
  let ai = 0;
  let bi = 0;
  for (const o of ops) {
    pos.push({ ai, bi });
    if (o.kind !== '+') ai++;
    if (o.kind !== '-') bi++;
  }
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.kind === ' ') {
      i++;
      continue;
    }
    const start = Math.max(0, i - context);
    let end = i;
    // Extend while the next change is within 2 × context equal lines.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end++;
      let gap = end;
      while (gap < ops.length && ops[gap]!.kind === ' ') gap++;
      if (gap < ops.length && gap - end <= 2 * context) end = gap;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    const slice = ops.slice(start, end);
    const aLen = slice.filter((o) => o.kind !== '+').length;
    const bLen = slice.filter((o) => o.kind !== '-').length;
    const aStart = aLen === 0 ? pos[start]!.ai : pos[start]!.ai + 1;
    const bStart = bLen === 0 ? pos[start]!.bi : pos[start]!.bi + 1;
    const range = (s: number, l: number) => (l === 1 ? `${s}` : `${s},${l}`);
    out.push(`@@ -${range(aStart, aLen)} +${range(bStart, bLen)} @@`);
    for (const o of slice) out.push(`${o.kind}${o.line}`);
    i = end;
  }
  return out.join('\n');
}
