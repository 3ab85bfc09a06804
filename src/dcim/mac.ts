// MAC addresses as people type them (aa:bb:cc:00:11:22, AA-BB-CC-00-11-22, aabb.cc00.1122, aabbcc001122) are one
// address: stored in NetBox's form, upper case with colons, so a filter in any notation finds it.
const NOTATIONS = [
  /^([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})$/i,
  /^([0-9a-f]{2})([0-9a-f]{2})\.([0-9a-f]{2})([0-9a-f]{2})\.([0-9a-f]{2})([0-9a-f]{2})$/i,
  /^([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i,
];

export const MAC_MESSAGE = 'Enter a MAC address: six hex pairs (aa:bb:cc:00:11:22, aa-bb-cc-00-11-22, aabb.cc00.1122 or aabbcc001122).';

/** The stored form of a MAC address, or null when the text is not one. */
export function normalizeMac(text: string): string | null {
  const t = text.trim();
  for (const re of NOTATIONS) {
    const m = re.exec(t);
    if (m) return m.slice(1).join(':').toUpperCase();
  }
  return null;
}
