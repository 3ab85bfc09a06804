// Release versions: X.Y.Z with an optional pre-release suffix (-dev1, -rc.2).
// The ordering is what the installer and the upgrade engine use to refuse downgrades,
// so it must agree with the SPEC: a pre-release is older than its own final and than
// the next release ('1.2.0-rc.2' < '1.2.0' < '1.2.1-dev1' < '1.2.1').

export interface ParsedVersion {
  major: number;
  minor: number;
  patch: number;
  pre: string | null;
}

// Numeric parts without leading zeros (so '1.02.0' and '1.2.0' cannot both exist);
// the suffix is dot/hyphen separated alphanumerics with no empty identifier.
const VERSION_RE = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z]+(?:[.-][0-9A-Za-z]+)*))?$/;

export function parseVersion(text: string): ParsedVersion | null {
  if (typeof text !== 'string') return null;
  const m = VERSION_RE.exec(text.trim());
  if (!m) return null;
  const [major, minor, patch] = [m[1], m[2], m[3]].map(Number);
  if (![major, minor, patch].every(Number.isSafeInteger)) return null;
  return { major, minor, patch, pre: m[4] ?? null };
}

// 'rc.10' → ['rc', 10]; 'dev1' → ['dev', 1]. Splitting letter/digit runs makes
// 'dev2' < 'dev10' (a plain string compare would not).
function preTokens(pre: string): Array<string | number> {
  const tokens: Array<string | number> = [];
  for (const part of pre.split(/[.-]/)) {
    for (const run of part.match(/\d+|[A-Za-z]+/g) ?? []) {
      tokens.push(/^\d+$/.test(run) ? Number(run) : run.toLowerCase());
    }
  }
  return tokens;
}

function comparePre(a: string, b: string): number {
  const ta = preTokens(a);
  const tb = preTokens(b);
  for (let i = 0; i < Math.min(ta.length, tb.length); i++) {
    const x = ta[i];
    const y = tb[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    // Semver's rule: a numeric identifier sorts before an alphanumeric one.
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return ta.length - tb.length;
}

function mustParse(text: string): ParsedVersion {
  const v = parseVersion(text);
  if (!v) throw new Error(`invalid version '${String(text)}': expected X.Y.Z with an optional pre-release suffix such as -dev1 or -rc.2`);
  return v;
}

/** <0 when a is older than b, 0 when equal, >0 when newer. Throws on an invalid version. */
export function compareVersions(a: string, b: string): number {
  const va = mustParse(a);
  const vb = mustParse(b);
  const core = va.major - vb.major || va.minor - vb.minor || va.patch - vb.patch;
  if (core !== 0) return Math.sign(core);
  if (va.pre === vb.pre) return 0;
  if (va.pre === null) return 1; // a final is newer than any of its pre-releases
  if (vb.pre === null) return -1;
  return Math.sign(comparePre(va.pre, vb.pre));
}

export function isPrerelease(version: string): boolean {
  return mustParse(version).pre !== null;
}
