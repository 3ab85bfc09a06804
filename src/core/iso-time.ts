// A Date as `Date.prototype.toISOString` writes it, in about half its time for the dates a database holds.
//
// Why: every API object carries `created` and `last_updated`; a page of 1,000 tags formats 2,000 of them. On the
// 2-core machine toISOString took 0.64 ms for those; this takes 0.35 ms when every date falls in another second, and
// less when they share one (the text up to the second is kept from the last call: a page's rows mostly share their
// day, often their second, and a row never changed has last_updated equal to created).

const TWO = Array.from({ length: 100 }, (_v, i) => String(i).padStart(2, '0'));
const MILLIS = Array.from({ length: 1000 }, (_v, i) => `${String(i).padStart(3, '0')}Z`);
const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from there toISOString writes six-digit years. */
const YEAR_10000 = 253_402_300_800_000;

let lastDay = Number.NaN;
let lastDayText = '';
let lastSecond = Number.NaN;
let lastSecondText = '';
let lastTime = Number.NaN;
let lastText = '';

export function isoTime(date: Date): string {
  const t = date.getTime();
  if (t === lastTime) return lastText;
  // Before 1970 (and invalid dates, which throw there as they should) the built-in handles it.
  if (!(t >= 0 && t < YEAR_10000)) return date.toISOString();
  const ms = t % 1000;
  const second = t - ms;
  // Each piece joined is a string of its own: the text up to the second is kept while it holds.
  if (second !== lastSecond) {
    const day = Math.floor(t / DAY_MS);
    if (day !== lastDay) {
      lastDay = day;
      lastDayText = civilDate(day);
    }
    let rest = (second - day * DAY_MS) / 1000;
    const sec = rest % 60;
    rest = (rest - sec) / 60;
    const min = rest % 60;
    const hour = (rest - min) / 60;
    lastSecond = second;
    lastSecondText = `${lastDayText}T${TWO[hour]}:${TWO[min]}:${TWO[sec]}.`;
  }
  lastTime = t;
  lastText = lastSecondText + MILLIS[ms];
  return lastText;
}

/** `YYYY-MM-DD` of a day counted from 1970-01-01 (Howard Hinnant's civil_from_days), for years 1970 to 9999. */
function civilDate(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const dayOfMonth = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${TWO[month]}-${TWO[dayOfMonth]}`;
}
