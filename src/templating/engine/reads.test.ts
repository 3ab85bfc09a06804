import { describe, expect, it } from 'vitest';
import { createEnvironment, TEMPLATE_OBJECT, UNDEFINED, type ItemReads, type TemplateObject } from './index.ts';

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

describe('item reads of a for loop', () => {
  /** What a loop over a host list told the list it does with each item (null: it takes them whole). */
  const itemReads = async (body: string, head = 'for d in objects'): Promise<Record<string, string[] | null> | null> => {
    let told: ItemReads | null | undefined;
    const objects: TemplateObject = {
      [TEMPLATE_OBJECT]: true,
      getAttr: () => UNDEFINED,
      iterate: () => [],
      iterateBatches(reads) {
        told = reads;
        let done = false;
        return { next: async () => (done ? { value: undefined, done: true } : ((done = true), { value: [], done: false })) };
      },
    };
    await env.compile(`{% ${head} %}${body}{% endfor %}`).render({ objects });
    if (told === undefined) throw new Error('the loop did not ask for batches');
    if (told === null) return null;
    return Object.fromEntries([...told].map(([k, v]) => [k, v === null ? null : [...v].sort()]));
  };

  it('lists each attribute read with the constant keys read below it', async () => {
    expect(await itemReads('{{ d.name }},{{ d.site.name }},{{ d.platform.name if d.platform else "" }},{{ d.primary_ip|host }}{{ d.custom_fields.a }}{{ d.custom_fields["b"] }}')).toEqual({
      name: null,
      site: ['name'],
      platform: null,
      primary_ip: null,
      custom_fields: ['a', 'b'],
    });
    // The loop's own `if`, macros and inner blocks of the body count as its reads.
    expect(await itemReads('{% macro m(x) %}{{ d.serial }}{% endmacro %}{% if d.role.slug %}{{ m(d.id) }}{% endif %}', 'for d in objects if d.site.slug')).toEqual({
      serial: null,
      role: ['slug'],
      id: null,
      site: ['slug'],
    });
    // A key that is a dict method's, private, or called, takes the value whole.
    expect(await itemReads('{{ d.site.items }}{{ d.tags._x }}{{ d.rack.upper() }}{{ d.role.mro }}')).toEqual({ site: null, tags: null, rack: null, role: null });
  });

  it('says nothing when the body takes the item whole, reads it by a name not constant, or rebinds it', async () => {
    for (const body of [
      '{{ d }}',
      '{{ d.name }}{{ d|tojson }}',
      "{{ d['name'] }}",
      '{{ d[key] }}',
      "{{ d|attr('name') }}",
      '{{ m(d) }}',
      '{{ d.items }}',
      '{{ d.keys() }}',
      '{{ d._private }}',
      '{{ d.constructor }}',
      '{{ d.get_status_display() }}',
      '{% set x = d %}{{ x.name }}',
      '{% set d = 1 %}{{ d.real }}',
      '{% for d in d.interfaces %}{{ d.name }}{% endfor %}',
      '{% with e = d %}{{ e.name }}{% endwith %}',
      '{{ [d]|length }}',
      '{{ d is none }}',
    ]) {
      expect(await itemReads(body), body).toBeNull();
    }
    expect(await itemReads('{{ k.name }}', 'for k, v in objects')).toBeNull();
  });
});
