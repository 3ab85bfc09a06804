// The --data reader of `cairn template render`: JSON numbers as Python's json.load reads them, so a template prints
// what Jinja2 prints for the same file (expected texts are Jinja2 3.1.6's output for the same template and JSON).
import { describe, expect, it } from 'vitest';
import { createEnvironment } from './engine/index.ts';
import { JsonSyntaxError, parsePythonJson } from './py-json.ts';

const render = (source: string, json: string) => createEnvironment().compile(source, 't').render(parsePythonJson(json) as Record<string, unknown>);

describe('parsePythonJson', () => {
  it("keeps a fraction or an exponent a float, and big integers exact", async () => {
    const json = '{"x": 3.0, "y": 3, "z": 1e2, "w": 2.5, "big": 123456789012345678901234567890, "n": -0.0, "l": [1.0, {"__proto__": 1}]}';
    expect(await render('{{ x }} {{ y }} {{ z }} {{ w }} {{ big }} {{ n }} {{ l }} {{ x + y }} {{ big + 1 }}', json)).toBe(
      "3.0 3 100.0 2.5 123456789012345678901234567890 -0.0 [1.0, {'__proto__': 1}] 6.0 123456789012345678901234567891",
    );
  });

  it('reads everything else as JSON.parse does', () => {
    const text = ' {"a": [true, false, null, "\\u00e9\\n", {}, []], "b": {"c": -12}} ';
    expect(parsePythonJson(text)).toEqual(JSON.parse(text));
  });

  it('refuses what is not JSON, saying where', () => {
    for (const bad of ['{"a": 1,}', '[1 2]', '{"a" 1}', '01', '{"a": 1} x', '"\t"', 'NaN']) {
      expect(() => parsePythonJson(bad), bad).toThrow(JsonSyntaxError);
    }
    expect(() => parsePythonJson('{\n  "a": tru\n}')).toThrow(/line 2/);
  });
});
