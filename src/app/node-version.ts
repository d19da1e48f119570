/** The Node lines svc supports (package.json engines): 22.12 or later on 22, and 24 onward. */
const OLDEST_SUPPORTED: readonly [number, number] = [22, 12];

/** One warning line for a Node older than svc supports (svc still starts), or null. */
export function nodeVersionWarning(version: string): string | null {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [oldestMajor, oldestMinor] = OLDEST_SUPPORTED;
  if (major > oldestMajor || (major === oldestMajor && minor >= oldestMinor)) return null;
  return (
    `svc: warning: Node ${version} is older than the Node lines svc supports (22.12 or later, or 24); it may still run, untested. ` +
    'A supported Node without root, from the npm registry: npx -y -p node@24 node bin/svc.js serve'
  );
}
