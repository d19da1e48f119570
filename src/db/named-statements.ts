import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * Distinct statements one connection keeps prepared; later new texts run unnamed (as every statement
 * did before). Statements built with `in (...)` lists vary with the list's length, so the set is not
 * closed: this bounds the server memory a long-lived connection holds.
 */
export const MAX_NAMED_STATEMENTS = 1000;

type QueryConfig = { text: string; name?: string | undefined } & Record<string, unknown>;

const nameOf = (text: string) => `svc_${createHash('sha1').update(text).digest('base64url')}`;

/**
 * A pool client that names every statement with parameters by a hash of its text, so PostgreSQL parses
 * and plans it once per connection rather than on every run (a booking's dozen statements spent more
 * time being planned than executed). The name depends on the text alone, so equal texts share one
 * prepared statement and different texts can never collide. Prepared statements outlive a rolled
 * back transaction, and pg records one only once PostgreSQL has parsed it.
 */
export class NamingClient extends pg.Client {
  private readonly names = new Map<string, string>();

  // pg.Client's query has many overloads; only a config object with values (drizzle's form, and the
  // pool's, which adds a callback) is named.
  override query(...args: unknown[]): any {
    const [config, values, ...rest] = args;
    if (typeof config === 'object' && config !== null && 'text' in config && Array.isArray(values) && values.length > 0 && rest.length <= 1) {
      const query = config as QueryConfig;
      const name = query.name === undefined ? this.nameFor(query.text) : null;
      if (name) return (super.query as (...a: unknown[]) => unknown)({ ...query, name }, values, ...rest);
    }
    return (super.query as (...a: unknown[]) => unknown)(...args);
  }

  private nameFor(text: string): string | null {
    const known = this.names.get(text);
    if (known) return known;
    if (this.names.size >= MAX_NAMED_STATEMENTS) return null;
    const name = nameOf(text);
    this.names.set(text, name);
    return name;
  }
}
