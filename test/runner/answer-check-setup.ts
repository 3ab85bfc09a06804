// Every JSON answer a test's app gives is checked against the schema its route documents (src/core/answer-check.ts,
// turned on by CAIRN_CHECK_ANSWERS in vitest.config.ts): the test during which an answer strayed from its
// documentation fails, naming the route and the field.
import { afterEach } from 'vitest';
import { takeAnswerMismatches } from '../../src/core/answer-check.ts';

afterEach(() => {
  const found = takeAnswerMismatches();
  if (!found.length) return;
  const lines = found.slice(0, 5).map((m) => `${m.method} ${m.route} → ${m.status}: ${m.errors.slice(0, 3).join('; ')}`);
  throw new Error(`${found.length} answer(s) did not match their documented schema:\n${lines.join('\n')}`);
});
