// Mail benchmark: POST /v2/bookings on PostgreSQL with SMTP_URL set to a loopback SMTP server in this
// process (smtp-server), each booking mailing its host and its attendee through the server's own
// worker, compared with the bookings figure of the same run (mail written to the log, no SMTP).
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** Mail may cost the booking path at most this share of its throughput. */
export const MAIL_MAX_COST = 0.15;

export interface BenchSmtp {
  url: string;
  received: () => number;
  close(): Promise<void>;
}

/** Accepts every message at once, counts them, keeps nothing. */
export async function startBenchSmtp(): Promise<BenchSmtp> {
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        received += 1;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, received: () => received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export const MAIL_NOTE = `mail (PostgreSQL): the bookings load of the bookings runs (20 hosts, 20 connections), three times with SMTP_URL pointing at an SMTP server on loopback in this bench process (smtp-server, accepts and discards) and three times without (mail written to the log, unseen at LOG_LEVEL=warn), taking turns, each on a fresh server and a fresh database. Every booking queues two messages (host, attendee) in its transaction, and the server's worker renders them in both cases and, with SMTP_URL, sends them over pooled SMTP connections while the load runs. ratio = median bookings/s with SMTP over median bookings/s without; metTarget: the cost (1 - ratio) is under ${MAIL_MAX_COST * 100}%. messages (per SMTP run): the messages of the run's bookings (warm-up included), how many the SMTP server had received once they all came or 10 s after the load, and how long after the load the last one came (null: not within the 10 s).`;
