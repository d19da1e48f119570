/**
 * Turns a function over many inputs (one SQL statement for many rows) into a function over one input.
 * Calls made in the same turn of the event loop, or while the previous group is still running, are run
 * together as the next group: when idle a call waits only for the I/O callbacks already due (say,
 * other receivers' answers), and under load the groups grow by themselves (as a database's group
 * commit does). Groups run one at a time, at most `maxGroupSize` inputs each. `run` returns one
 * output per input, in order; if it throws, every call of that group rejects with its error.
 */
export function groupedCalls<Input, Output>(run: (inputs: Input[]) => Promise<Output[]>, maxGroupSize = 100): (input: Input) => Promise<Output> {
  interface Waiting {
    input: Input;
    resolve(output: Output): void;
    reject(error: unknown): void;
  }
  let waiting: Waiting[] = [];
  let draining = false;

  const drain = async () => {
    while (waiting.length > 0) {
      const group = waiting.slice(0, maxGroupSize);
      waiting = waiting.slice(group.length);
      try {
        const outputs = await run(group.map((call) => call.input));
        if (outputs.length !== group.length) throw new Error(`grouped call returned ${outputs.length} outputs for ${group.length} inputs`);
        group.forEach((call, index) => call.resolve(outputs[index]!));
      } catch (error) {
        for (const call of group) call.reject(error);
      }
    }
    draining = false;
  };

  return (input) =>
    new Promise<Output>((resolve, reject) => {
      waiting.push({ input, resolve, reject });
      if (draining) return;
      draining = true;
      // setImmediate, not a microtask: it runs after the I/O callbacks of this turn, which may call too.
      setImmediate(() => void drain());
    });
}
