/** Polls `check` until it holds (returns the milliseconds it took) or fails after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 2000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}
