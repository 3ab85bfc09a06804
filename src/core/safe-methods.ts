// The HTTP methods that change nothing (RFC 9110's safe methods Cairn serves). A read-only token may use them, a
// closed write gate and a hold that answers reads let them through, and their requests record no write mark.
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
