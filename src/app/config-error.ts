/** A setting of the environment svc cannot run with: the CLI prints its message and exits. */
export class ConfigError extends Error {}
