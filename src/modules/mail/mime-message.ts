/**
 * One outgoing message as MIME (RFC 5322, 2045-2047): the fixed shapes svc sends, built straight into
 * a string. nodemailer's composer built each message through a dozen chained streams (about 0.7 ms of
 * CPU a message, most of mail's cost to the booking path) and attached the invitation twice; here a
 * message costs a few base64 encodings. Header words are encoded by nodemailer's own mime-funcs.
 */
import { randomBytes } from 'node:crypto';
import { domainToASCII } from 'node:url';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs';
import type { OutgoingMail } from './mail-transport.js';

const CRLF = '\r\n';
/** The reference's name for the attachment (a second text/calendar part confuses some clients: application/ics). */
const ICS_FILENAME = 'invite.ics';

export interface MailAddress {
  name: string | null;
  address: string;
}

/** Header text never carries a line break: a user's title or name cannot add a header. */
const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ');

const WHITE_SPACE = /[\s\p{Zl}\p{Zp}]+/gu;
// Control characters and invisible format characters (bidi overrides, zero-width spaces) but the
// zero-width joiner, which only joins emoji.
const INVISIBLE = /(?!\u200d)[\p{Cc}\p{Cf}]/gu;

/**
 * Text as a header shows it: one line, each run of white space one space, no control or invisible
 * format characters (a name cannot reorder or hide the words around it).
 */
export function headerText(value: string): string {
  return value.replace(WHITE_SPACE, ' ').replace(INVISIBLE, '').replace(/ {2,}/g, ' ').trim();
}
// Printable ASCII but for the quoting rules' specials: sent as it is.
const PLAIN_WORDS = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~ ]*$/;
const ASCII = /^[\x20-\x7e]*$/;

/** A display name: as it is, quoted, or as encoded words when it is not ASCII. */
function displayName(name: string): string {
  if (PLAIN_WORDS.test(name)) return name;
  if (ASCII.test(name)) return `"${name.replace(/["\\]/g, '\\$&')}"`;
  return mimeFuncs.encodeWord(name, 'B', 52);
}

/** `Name <local@domain>`, the domain in ASCII (IDNA) as SMTP needs it. */
function formatAddress({ name, address }: MailAddress): string {
  const at = address.lastIndexOf('@');
  const ascii = at < 0 ? address : `${address.slice(0, at + 1)}${domainToASCII(address.slice(at + 1)) || address.slice(at + 1)}`;
  const cleanName = name === null ? '' : headerText(name);
  return cleanName ? `${displayName(cleanName)} <${ascii}>` : ascii;
}

function header(name: string, value: string): string {
  return mimeFuncs.foldLines(`${name}: ${value}`, 76) + CRLF;
}

function unstructured(value: string): string {
  const line = headerText(value);
  return ASCII.test(line) ? line : mimeFuncs.encodeWords(line, 'B', 52, true);
}

/** A part's body in base64, 76 characters a line. */
function base64Lines(content: string): string {
  const encoded = Buffer.from(content, 'utf8').toString('base64');
  let lines = '';
  for (let at = 0; at < encoded.length; at += 76) lines += encoded.slice(at, at + 76) + CRLF;
  return lines;
}

interface Part {
  headers: string;
  body: string;
}

const leaf = (contentType: string, content: string, extraHeaders = ''): Part => ({
  headers: `Content-Type: ${contentType}${CRLF}Content-Transfer-Encoding: base64${CRLF}${extraHeaders}`,
  body: base64Lines(content),
});

function multipart(subtype: 'mixed' | 'alternative', parts: Part[]): Part {
  const boundary = `svc-${randomBytes(12).toString('hex')}`;
  let body = '';
  for (const part of parts) body += `--${boundary}${CRLF}${part.headers}${CRLF}${part.body}`;
  return { headers: `Content-Type: multipart/${subtype}; boundary="${boundary}"${CRLF}`, body: `${body}--${boundary}--${CRLF}` };
}

/** RFC 5322's date-time in UTC: `Wed, 25 Nov 2026 19:14:10 +0000`. */
const dateHeader = (at: Date) => at.toUTCString().replace(/GMT$/, '+0000');

/**
 * The message: text, with its HTML as an alternative; an invitation adds the `text/calendar;
 * method=...` alternative calendar clients act on, and the same file attached as invite.ics.
 */
export function composeMime(from: MailAddress, mail: OutgoingMail, at = new Date()): string {
  const alternatives = [leaf('text/plain; charset=utf-8', mail.text)];
  if (mail.html !== null) alternatives.push(leaf('text/html; charset=utf-8', mail.html));
  if (mail.invitation) alternatives.push(leaf(`text/calendar; charset=utf-8; method=${mail.invitation.method}`, mail.invitation.ics));
  const content = alternatives.length === 1 ? alternatives[0]! : multipart('alternative', alternatives);
  const root = mail.invitation
    ? multipart('mixed', [content, leaf(`application/ics; name=${ICS_FILENAME}`, mail.invitation.ics, `Content-Disposition: attachment; filename=${ICS_FILENAME}${CRLF}`)])
    : content;
  return (
    header('From', formatAddress(from)) +
    header('To', formatAddress(mail.to)) +
    header('Subject', unstructured(mail.subject)) +
    header('Message-ID', `<${oneLine(mail.messageId)}>`) +
    header('Date', dateHeader(at)) +
    `MIME-Version: 1.0${CRLF}` +
    root.headers +
    CRLF +
    root.body
  );
}
