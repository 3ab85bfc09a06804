// Python's `random` module as far as Jinja2's `random` filter uses it: the Mersenne Twister (MT19937) seeded as
// `random.seed(n)` seeds it from an integer, and `random.choice`. With the same seed a template picks the same
// items as under Python's Jinja2, so a seeded environment renders byte for byte what Python renders.

const N = 624;
const M = 397;

export class PyRandom {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  /** random.seed(seed) for a non-negative or negative integer (Python seeds from its absolute value). */
  constructor(seed: number | bigint) {
    let n = BigInt(seed);
    if (n < 0n) n = -n;
    // The integer's 32-bit words, least significant first; zero is one word of 0.
    const key: number[] = [];
    do {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    } while (n > 0n);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** The next 32-bit output (genrand_uint32). */
  uint32(): number {
    const mt = this.mt;
    if (this.index >= N) {
      for (let k = 0; k < N; k++) {
        const y = (mt[k]! & 0x80000000) | (mt[(k + 1) % N]! & 0x7fffffff);
        mt[k] = mt[(k + M) % N]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** random.getrandbits(k) for 1 ≤ k ≤ 32. */
  private bits(k: number): number {
    return this.uint32() >>> (32 - k);
  }

  /** random._randbelow(n): a uniform integer in [0, n) by rejection, as Python draws it (n < 2**32). */
  below(n: number): number {
    const k = 32 - Math.clz32(n); // n.bit_length()
    let r = this.bits(k);
    while (r >= n) r = this.bits(k);
    return r;
  }

  /** random.choice(seq) for a non-empty sequence's length: the index chosen. */
  choiceIndex(length: number): number {
    return this.below(length);
  }
}
