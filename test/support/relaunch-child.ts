// Child process of test/lib/launch.test.ts: relaunches as `svc serve` would on a 32 GiB machine with
// V8 13, then prints what the process it became was started with.
import { launchFacts, relaunchIfNeeded } from '../../src/app/launch.js';

relaunchIfNeeded({ ...launchFacts(), command: 'serve', v8Version: '13.6.0', memoryBytes: 32 * 2 ** 30 });
console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, args: process.argv.slice(2) }));
