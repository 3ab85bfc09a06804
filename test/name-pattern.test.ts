// The device's "Add components" names: NetBox's alphanumeric patterns expanded, bad ones refused with the reason.
import { describe, expect, it } from 'vitest';
import { expandNamePattern, isNamePattern, MAX_PATTERN_NAMES, NamePatternError } from '../web/src/features/devices/name-pattern.ts';

describe('name patterns', () => {
  it('expands a numeric range into every name, in order', () => {
    const names = expandNamePattern('Ethernet1/[1-48]');
    expect(names).toHaveLength(48);
    expect(names.slice(0, 3)).toEqual(['Ethernet1/1', 'Ethernet1/2', 'Ethernet1/3']);
    expect(names.at(-1)).toBe('Ethernet1/48');
  });

  it('expands letters, lists, leading zeros and several brackets', () => {
    expect(expandNamePattern('Port[a-c]')).toEqual(['Porta', 'Portb', 'Portc']);
    expect(expandNamePattern('[ge,xe]-0/0/[0-1]')).toEqual(['ge-0/0/0', 'ge-0/0/1', 'xe-0/0/0', 'xe-0/0/1']);
    expect(expandNamePattern('Ethernet[08-10]')).toEqual(['Ethernet08', 'Ethernet09', 'Ethernet10']);
    expect(expandNamePattern('e[1-2,5]')).toEqual(['e1', 'e2', 'e5']);
    expect(expandNamePattern('PSU[A-B]')).toEqual(['PSUA', 'PSUB']);
  });

  it('keeps a name without brackets as it is', () => {
    expect(expandNamePattern('mgmt0')).toEqual(['mgmt0']);
    expect(isNamePattern('mgmt0')).toBe(false);
    expect(isNamePattern('e[1-2]')).toBe(true);
  });

  it('refuses bad patterns with the reason', () => {
    const bad = (p: string) => {
      try {
        expandNamePattern(p);
      } catch (err) {
        expect(err).toBeInstanceOf(NamePatternError);
        return (err as Error).message;
      }
      throw new Error(`${p} was accepted`);
    };
    expect(bad('Ethernet1/[48-1]')).toMatch(/runs backwards/);
    expect(bad('Ethernet1/[1-48')).toMatch(/not closed/);
    expect(bad('Ethernet1/1-48]')).toMatch(/no "\["/);
    expect(bad('e[]')).toMatch(/empty/);
    expect(bad('e[1-c]')).toMatch(/not a range/);
    expect(bad('e[a-C]')).toMatch(/capitals/);
    expect(bad('e[x y]')).toMatch(/not a name part/);
    expect(bad('e[[1-2]]')).toMatch(/nested/);
    expect(bad(`e[1-${MAX_PATTERN_NAMES + 1}]`)).toMatch(/more than/);
    expect(bad('e[1-100]/[1-100]')).toMatch(/at most/);
  });
});
