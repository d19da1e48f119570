import { parse, type PGlite, protocol, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';

/**
 * Prepared statements for the embedded store. PGlite's `query` parses and plans every statement anew
 * and crosses into WebAssembly once per protocol message (parse, describe, bind, describe, execute,
 * sync): about 1 ms for the busy-time read against 0.2 ms when the statement is prepared once and run
 * with one bind-describe-execute-sync batch. svc's statements are few and fixed, so each statement with
 * parameters is prepared under a name on its first run (as NamingClient does on PostgreSQL) and later
 * runs bind that name. Results are read by PGlite's own parser, so rows come back as from `query`.
 */
const { serialize } = protocol;

/** Statements PostgreSQL can prepare; anything else runs through PGlite's `query` as before. */
const PREPARABLE = /^\s*(select|insert|update|delete|with|values)\b/i;
/** Distinct statements kept prepared (see MAX_NAMED_STATEMENTS): later new texts run unnamed. */
const MAX_STATEMENTS = 1000;

interface Prepared {
  name: string;
  /** Type of each parameter, as the statement's description gives them (for PGlite's serializers). */
  types: number[];
}

/** PGlite's internals this relies on: its two locks and its readiness check (public in JavaScript). */
interface PGliteLocks {
  _checkReady(): Promise<void>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
}

type Query = <T>(text: string, params?: unknown[], options?: QueryOptions) => Promise<Results<T>>;

function batch(...parts: Uint8Array[]): Uint8Array {
  const message = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    message.set(part, at);
    at += part.length;
  }
  return message;
}

const patched = new WeakSet<PGlite>();

/** Makes `client.query` and its transactions' `query` run statements with parameters prepared. */
export function usePreparedStatements(client: PGlite): void {
  if (patched.has(client)) return;
  patched.add(client);
  const locks = client as unknown as PGliteLocks;
  // Another PGlite without these: its own query as it is (the test of this module fails, telling).
  if (![locks._checkReady, locks._runExclusiveTransaction, locks._runExclusiveQuery].every((method) => typeof method === 'function')) return;
  const prepared = new Map<string, Prepared>();

  const preparedFor = async (text: string, options: QueryOptions | undefined): Promise<Prepared> => {
    const known = prepared.get(text);
    if (known) return known;
    const name = `svc_${prepared.size}`;
    const { messages } = await client.execProtocol(
      batch(serialize.parse({ name, text, types: options?.paramTypes ?? [] }), serialize.describe({ type: 'S', name }), serialize.sync()),
      { syncToFs: false },
    );
    const statement = { name, types: parse.parseDescribeStatementResults(messages) };
    prepared.set(text, statement);
    return statement;
  };

  // Under the query lock, as PGlite's own query; outside a transaction the store is synced after it.
  const runPrepared = <T>(text: string, params: unknown[], options: QueryOptions | undefined, inTransaction: boolean): Promise<Results<T>> =>
    locks._runExclusiveQuery(async () => {
      const { name, types } = await preparedFor(text, options);
      const values = params.map((param, index) => {
        if (param === null || param === undefined) return null;
        const serializer = options?.serializers?.[types[index]!] ?? client.serializers[types[index]!];
        return serializer ? serializer(param) : String(param);
      });
      const { messages } = await client.execProtocol(
        batch(serialize.bind({ statement: name, values: values as string[] }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()),
        { syncToFs: !inTransaction },
      );
      // PGlite copies all its parsers (about 300) to merge a query's own into them, on every call: 80 us
      // a statement, as much as running it. Chained onto them, only the query's own are copied.
      if (!options?.parsers) return parse.parseResults(messages, client.parsers, options)[0] as Results<T>;
      const parsers = Object.assign(Object.create(client.parsers) as typeof client.parsers, options.parsers);
      return parse.parseResults(messages, parsers, { ...options, parsers: undefined })[0] as Results<T>;
    });

  const preparable = (text: string, params: unknown[] | undefined, options: QueryOptions | undefined): params is unknown[] =>
    params !== undefined && params.length > 0 && !options?.blob && PREPARABLE.test(text) && (prepared.has(text) || prepared.size < MAX_STATEMENTS);

  const plainQuery = client.query.bind(client) as Query;
  client.query = (async <T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> => {
    if (!preparable(text, params, options)) return plainQuery<T>(text, params, options);
    await locks._checkReady();
    return locks._runExclusiveTransaction(() => runPrepared<T>(text, params, options, false));
  }) as PGlite['query'];

  const plainTransaction = client.transaction.bind(client);
  client.transaction = (<T>(callback: (tx: Transaction) => Promise<T>) =>
    plainTransaction((tx) => {
      const txQuery = tx.query.bind(tx) as Query;
      const query = async <T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> => {
        if (!preparable(text, params, options)) return txQuery<T>(text, params, options);
        if (tx.closed) throw new Error('Transaction is closed');
        return runPrepared<T>(text, params, options, true);
      };
      return callback(Object.create(tx, { query: { value: query } }) as Transaction);
    })) as PGlite['transaction'];
}
