import { describe, expect, it } from 'vitest';
import { compareVersions, isPrerelease, parseVersion } from './version.ts';

describe('parseVersion', () => {
  it('reads X.Y.Z and the pre-release suffix', () => {
    expect(parseVersion('1.2.3')).toEqual({ major: 1, minor: 2, patch: 3, pre: null });
    expect(parseVersion('0.17.0-dev1')).toEqual({ major: 0, minor: 17, patch: 0, pre: 'dev1' });
    expect(parseVersion('2.0.0-rc.10')).toEqual({ major: 2, minor: 0, patch: 0, pre: 'rc.10' });
    expect(parseVersion(' 1.0.0\n')).toEqual({ major: 1, minor: 0, patch: 0, pre: null });
  });

  it.each(['', '1', '1.2', '1.2.3.4', 'v1.2.3', '01.2.3', '1.02.3', '1.2.03', '1.2.3-', '1.2.3-rc..1', '1.2.3+build', 'a.b.c', '1.2.3-rc_1', '-1.2.3'])(
    'refuses %j',
    (text) => {
      expect(parseVersion(text)).toBeNull();
      expect(() => compareVersions(text, '1.0.0')).toThrow(/invalid version/);
      expect(() => compareVersions('1.0.0', text)).toThrow(/invalid version/);
    },
  );
});

describe('compareVersions', () => {
  // Each list is strictly ascending; every pair is checked both ways.
  const ascending = [
    '0.16.9',
    '0.17.0-dev1',
    '0.17.0-dev2',
    '0.17.0-dev10',
    '0.17.0-rc.1',
    '0.17.0-rc.2',
    '0.17.0-rc.10',
    '0.17.0',
    '0.17.1-dev1',
    '0.17.1',
    '0.18.0',
    '1.0.0-rc.1',
    '1.0.0',
    '1.2.0-rc.2',
    '1.2.0',
    '1.2.1-dev1',
    '1.2.1',
    '1.10.0',
    '10.0.0',
  ];
  it('orders the release table', () => {
    for (let i = 0; i < ascending.length; i++) {
      for (let j = 0; j < ascending.length; j++) {
        const got = Math.sign(compareVersions(ascending[i], ascending[j]));
        expect([ascending[i], ascending[j], got]).toEqual([ascending[i], ascending[j], Math.sign(i - j)]);
      }
    }
  });

  it('sorts a shuffled list into release order', () => {
    const shuffled = [...ascending].reverse();
    shuffled.push(shuffled.shift()!);
    expect(shuffled.sort(compareVersions)).toEqual(ascending);
  });

  it('follows SemVer precedence for dotted pre-releases, case-insensitively', () => {
    const semver = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0'];
    expect([...semver].reverse().sort(compareVersions)).toEqual(semver);
    // 'RC' must not sort before 'alpha' just because upper case comes first in ASCII.
    expect(compareVersions('1.0.0-RC.1', '1.0.0-alpha.1')).toBeGreaterThan(0);
    expect(compareVersions('1.0.0-alpha10', '1.0.0-alpha2')).toBeGreaterThan(0);
  });

  it('treats equal versions as equal', () => {
    expect(compareVersions('1.2.3', '1.2.3')).toBe(0);
    expect(compareVersions('1.2.3-rc.1', '1.2.3-rc.1')).toBe(0);
  });

  it('knows which versions are pre-releases', () => {
    expect(isPrerelease('1.2.3-dev1')).toBe(true);
    expect(isPrerelease('1.2.3')).toBe(false);
  });
});
