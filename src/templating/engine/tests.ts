// Jinja2 3.1's built-in tests.
import { builtin } from './bind.ts';
import { contains, iterable, thenMaybe, toList } from './ops.ts';
import type { TestImpl } from './state.ts';
import {
  Markup,
  PyObject,
  isDict,
  isFloat,
  isNumeric,
  isStr,
  isTemplateObject,
  isUndefined,
  mod0,
  pyCompare,
  pyEquals,
  strValue,
  toNumber,
  toStr,
} from './values.ts';

export function builtinTests(): Map<string, TestImpl> {
  const m = new Map<string, TestImpl>();
  const def = (names: string[], spec: (string | [string, unknown])[], impl: Parameters<typeof builtin>[2]): void => {
    const t = builtin(names[0], spec, impl);
    for (const n of names) m.set(n, t);
  };
  def(['boolean'], [], (_s, v) => typeof v === 'boolean');
  def(['callable'], [], (_s, v) => v instanceof PyObject && v.isCallable());
  def(['defined'], [], (_s, v) => !isUndefined(v));
  def(['undefined'], [], (_s, v) => isUndefined(v));
  def(['divisibleby'], ['num'], (_s, v, n) => mod0(v, n));
  def(['eq', 'equalto', '=='], ['other'], (_s, v, o) => pyEquals(v, o));
  def(['ne', '!='], ['other'], (_s, v, o) => !pyEquals(v, o));
  def(['gt', '>', 'greaterthan'], ['other'], (_s, v, o) => pyCompare(v, o, '>') > 0);
  def(['ge', '>='], ['other'], (_s, v, o) => pyCompare(v, o, '>=') >= 0);
  def(['lt', '<', 'lessthan'], ['other'], (_s, v, o) => pyCompare(v, o, '<') < 0);
  def(['le', '<='], ['other'], (_s, v, o) => pyCompare(v, o, '<=') <= 0);
  def(['escaped'], [], (_s, v) => v instanceof Markup);
  def(['even'], [], (_s, v) => mod0(v, 2));
  def(['odd'], [], (_s, v) => !mod0(v, 2));
  def(['false'], [], (_s, v) => v === false);
  def(['true'], [], (_s, v) => v === true);
  def(['filter'], [], (s, v) => isStr(v) && s.registry.filters.has(strValue(v)));
  def(['test'], [], (s, v) => isStr(v) && s.registry.tests.has(strValue(v)));
  def(['float'], [], (_s, v) => isFloat(v));
  def(['integer'], [], (_s, v) => (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint');
  def(['number'], [], (_s, v) => isNumeric(v));
  def(['lower'], [], (_s, v) => {
    const s = toStr(v);
    return s !== s.toUpperCase() && s === s.toLowerCase();
  });
  def(['upper'], [], (_s, v) => {
    const s = toStr(v);
    return s !== s.toLowerCase() && s === s.toUpperCase();
  });
  def(['string'], [], (_s, v) => isStr(v));
  def(['mapping'], [], (_s, v) => isDict(v));
  def(['none'], [], (_s, v) => v === null);
  def(['sameas'], ['other'], (_s, v, o) => v === o || (isNumeric(v) && isNumeric(o) && typeof v === typeof o && toNumber(v) === toNumber(o)));
  def(['sequence'], [], (_s, v) => isStr(v) || Array.isArray(v) || isDict(v) || (isTemplateObject(v) && Boolean(v.length)));
  def(['iterable'], [], (_s, v) => {
    if (isUndefined(v)) return true;
    try {
      iterable(v);
      return true;
    } catch {
      return false;
    }
  });
  def(['in'], ['seq'], (s, v, seq) => (isTemplateObject(seq) ? thenMaybe(toList(seq, s), (l) => contains(l, v)) : contains(seq, v)));
  return m;
}
