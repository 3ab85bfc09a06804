import { describe, expect, it } from 'vitest';
import { createEnvironment } from './index.ts';

const env = createEnvironment();
const keysBelow = (src: string, attr = 'custom_fields'): string[] | null => {
  const keys = env.compile(src).reads().keysBelow(attr);
  return keys ? [...keys].sort() : null;
};

describe('attribute reads', () => {
  it('collects the constant keys read below an attribute', () => {
    expect(keysBelow('{% for d in objects %}{{ d.custom_fields.support_tier }}{% endfor %}')).toEqual(['support_tier']);
    expect(keysBelow("{{ d.custom_fields['a'] }}{{ d.site.custom_fields.b|upper }}{% if d.custom_fields.c is defined %}x{% endif %}")).toEqual(['a', 'b', 'c']);
    expect(keysBelow('{{ d.custom_fields.a.items() }}')).toEqual(['a']);
  });

  it('knows nothing when any use takes the value whole', () => {
    for (const src of [
      '{{ d.name }}',
      '{{ d.custom_fields }}',
      '{{ d.custom_fields.a }}{{ d.custom_fields|tojson }}',
      '{% set cf = d.custom_fields %}{{ cf.a }}',
      '{% for k, v in d.custom_fields.items() %}{{ k }}{% endfor %}',
      '{{ d.custom_fields.a }}{{ d.custom_fields.get("b") }}',
      '{{ d.custom_fields.a }}{{ d.custom_fields.keys }}',
      "{{ d.custom_fields.a }}{{ 'b' in d.custom_fields }}",
      '{{ d.custom_fields.a }}{{ m(d.custom_fields) }}',
      "{{ d.custom_fields.a }}{{ d|attr('custom_fields') }}",
      "{{ d.custom_fields.a }}{{ objects|map(attribute='custom_fields.b')|list }}",
      "{{ d.custom_fields.a }}{{ d['custom_fields'] }}",
      "{{ d.custom_fields.a }}{{ d.custom_fields[key] }}",
      "{{ d.custom_fields.a }}{% set k = 'custom' ~ '_fields' %}{{ d[k].b }}",
      '{{ d.custom_fields.a }}{{ d|attr(name) }}',
      '{{ d.custom_fields.a }}{{ objects|sort(**opts) }}',
    ]) {
      expect(keysBelow(src), src).toBeNull();
    }
  });
});

describe('attribute mentions', () => {
  it('says whether an attribute may be read at all', () => {
    const mentions = (src: string, attr: string) => env.compile(src).reads().mentions(attr);
    expect(mentions('{{ d.primary_ip|host if d.primary_ip else "" }}', 'primary_ip')).toBe(true);
    expect(mentions('{{ d.name }}', 'primary_ip')).toBe(false);
    expect(mentions("{{ d|attr('primary_ip') }}", 'primary_ip')).toBe(true);
    expect(mentions("{{ objects|map(attribute='primary_ip.address')|join }}", 'primary_ip')).toBe(true);
    expect(mentions('{{ d[key] }}', 'primary_ip')).toBe(true);
  });
});
