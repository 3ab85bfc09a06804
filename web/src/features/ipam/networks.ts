// Address order of networks as the UI shows them (IPv4 before IPv6, then by address, then shorter masks first).

function bytesOf(address: string): number[] {
  if (!address.includes(':')) return address.split('.').map(Number);
  const [head, tail = ''] = address.split('::') as [string, string?];
  const part = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = part(head);
  const t = address.includes('::') ? part(tail) : [];
  const groups = [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
  return groups.flatMap((g) => [g >> 8, g & 255]);
}

export function compareNetworks(a: string, b: string): number {
  const [aa, al = '0'] = a.split('/');
  const [ba, bl = '0'] = b.split('/');
  const x = bytesOf(aa!);
  const y = bytesOf(ba!);
  if (x.length !== y.length) return x.length - y.length;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return Number(al) - Number(bl);
}

/** Whether network `outer` holds network `inner` (same family, shorter or equal mask, same leading bits). */
export function holds(outer: string, inner: string): boolean {
  const [oa, ol = '0'] = outer.split('/');
  const [ia, il = '0'] = inner.split('/');
  const x = bytesOf(oa!);
  const y = bytesOf(ia!);
  if (x.length !== y.length || Number(il) < Number(ol)) return false;
  let bits = Number(ol);
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 255 : (0xff << (8 - bits)) & 255;
    if ((x[i]! & mask) !== (y[i]! & mask)) return false;
  }
  return true;
}
