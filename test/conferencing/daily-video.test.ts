// The built-in video on Daily (SVC_DAILY_API_KEY), over HTTP against a local server implementing Daily's
// documented REST API and signing its webhooks as Daily does (test/support/fake-daily.ts): a room per
// booking, named and linked with the booking and made at Daily by a job, given a new expiry on
// reschedule and deleted on cancel; the booking's sessions, recordings and transcripts read from Daily
// for those allowed; signed recording and transcript events becoming the booking's webhooks, a forged
// one refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { createEventType, createHost, type Host } from '../slots/helpers.js';
import { eventually } from '../support/eventually.js';
import { type FakeDaily, startFakeDaily } from '../support/fake-daily.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { type Receiver, startReceiver } from '../webhooks/helpers.js';

// 2027-03-01 is a Monday; London is on UTC then.
const at = (day: number, time: string) => `2027-03-${String(day).padStart(2, '0')}T${time}:00.000Z`;
const seconds = (iso: string) => Date.parse(iso) / 1000;

describe('the built-in video on Daily', () => {
  let daily: FakeDaily;
  let hooks: Receiver;
  let api: TestApp;
  let host: Host;
  let stranger: Host;
  let eventType: any;

  before(async () => {
    daily = await startFakeDaily();
    hooks = await startReceiver();
    api = await createTestApp({
      SVC_DAILY_API_KEY: daily.apiKey,
      SVC_DAILY_API_URL: daily.apiUrl,
      SVC_DAILY_ROOM_URL: daily.roomUrl,
      SVC_DAILY_WEBHOOK_SECRET: daily.webhookSecret,
      SVC_JOB_RETRY_BASE_MS: '100',
    });
    host = await createHost(api, 'Europe/London');
    stranger = await createHost(api, 'Europe/London');
    eventType = await createEventType(api, host, { title: 'Video call', lengthInMinutes: 30 });
  });
  after(async () => {
    await api?.close();
    await daily?.close();
    await hooks?.close();
  });

  async function book(start: string) {
    const response = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId: eventType.id, start, attendee: { name: 'Bea', email: 'bea.daily@example.com', timeZone: 'Asia/Kathmandu' } } });
    assert.equal(response.status, 201, response.text);
    return response.body.data;
  }
  const roomName = (link: string) => link.slice(`${daily.roomUrl}/`.length);
  const read = (uid: string, what: string, key = host.apiKey) => api.request('GET', `/v2/bookings/${uid}/${what}`, { version: BOOKINGS_VERSION, key });

  test('a booking gets a room of its own on the domain, made at Daily after it commits, with an expiry after its end', async () => {
    const first = await book(at(1, '10:00'));
    const second = await book(at(1, '11:00'));
    assert.ok(first.location.startsWith(`${daily.roomUrl}/svc-`), first.location);
    assert.equal(first.meetingUrl, first.location);
    assert.equal(first.metadata.videoCallUrl, first.location);
    assert.notEqual(first.location, second.location);
    assert.match(roomName(first.location), /^svc-[A-Za-z0-9_-]{22}$/, '128 random bits');
    await eventually(async () => daily.rooms.has(roomName(first.location)) && daily.rooms.has(roomName(second.location)), 10_000);
    const room = daily.rooms.get(roomName(first.location))!;
    assert.equal(room.privacy, 'public');
    assert.equal(room.exp, seconds(at(1, '10:30')) + 24 * 3600);
    const references = (await api.request('GET', `/v2/bookings/${first.uid}/references`, { version: BOOKINGS_VERSION, key: host.apiKey })).body.data;
    assert.deepEqual(references.map((reference: any) => [reference.type, reference.eventUid]), [['daily_video', roomName(first.location)]]);
  });

  test('a rescheduled booking keeps its room, open until after its new end; a cancelled one loses it', async () => {
    const created = await book(at(2, '10:00'));
    const name = roomName(created.location);
    await eventually(async () => daily.rooms.has(name), 10_000);
    const moved = await api.request('POST', `/v2/bookings/${created.uid}/reschedule`, { version: BOOKINGS_VERSION, body: { start: at(3, '15:00') } });
    assert.equal(moved.status, 201, moved.text);
    assert.equal(moved.body.data.location, created.location);
    await eventually(async () => daily.rooms.get(name)?.exp === seconds(at(3, '15:30')) + 24 * 3600, 10_000);
    const cancelled = await api.request('POST', `/v2/bookings/${moved.body.data.uid}/cancel`, { version: BOOKINGS_VERSION, key: host.apiKey, body: { cancellationReason: 'no' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    await eventually(async () => !daily.rooms.has(name), 10_000);
  });

  test('a seat moved into a booking of its own gets a room of its own; the seats that stay keep theirs', async () => {
    const seated = await createEventType(api, host, { title: 'Class', lengthInMinutes: 30, seats: { seatsPerTimeSlot: 3, showAttendeeInfo: true, showAvailabilityCount: true } });
    const seat = (name: string) => api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId: seated.id, start: at(9, '10:00'), attendee: { name, email: `${name.toLowerCase()}.class@example.com`, timeZone: 'UTC' } } });
    const first = (await seat('Ann')).body.data;
    const second = (await seat('Ben')).body.data;
    assert.equal(second.uid, first.uid);
    const moved = await api.request('POST', `/v2/bookings/${first.uid}/reschedule`, { version: BOOKINGS_VERSION, body: { start: at(9, '14:00'), seatUid: second.seatUid } });
    assert.equal(moved.status, 201, moved.text);
    assert.ok(moved.body.data.location.startsWith(`${daily.roomUrl}/svc-`));
    assert.notEqual(moved.body.data.location, first.location);
    await eventually(async () => daily.rooms.get(roomName(moved.body.data.location))?.exp === seconds(at(9, '14:30')) + 24 * 3600, 10_000);
    assert.equal(daily.rooms.get(roomName(first.location))?.exp, seconds(at(9, '10:30')) + 24 * 3600, 'the class room stays as it was');
  });

  test('Daily failing: the room is made on a later attempt', async () => {
    daily.failNext(500);
    const created = await book(at(4, '10:00'));
    await eventually(async () => daily.rooms.has(roomName(created.location)), 10_000);
  });

  test('sessions, recordings and transcripts come from Daily for the organizer; another user is refused', async () => {
    const created = await book(at(5, '10:00'));
    const name = roomName(created.location);
    await eventually(async () => daily.rooms.has(name), 10_000);
    const start = seconds(at(5, '10:01'));
    const sessionId = daily.addSession(name, {
      start_time: start,
      duration: 1500,
      ongoing: false,
      max_participants: 2,
      participants: [
        { user_id: null, participant_id: 'p1', user_name: 'Bea', join_time: start, duration: 1500 },
        { user_id: 'u-7', participant_id: 'p2', user_name: null, join_time: start + 60, duration: 1400 },
      ],
    });
    const recordingId = daily.addRecording(name, { start_ts: start + 5, duration: 1400, max_participants: 2 });
    daily.addRecording(name, { start_ts: start + 10, duration: 0, max_participants: 1, status: 'in-progress' });
    daily.addTranscript(name);
    daily.addTranscript(name, 't_in_progress');

    const sessions = await read(created.uid, 'conferencing-sessions');
    assert.equal(sessions.status, 200, sessions.text);
    assert.deepEqual(sessions.body.data, [
      {
        id: sessionId,
        room: name,
        startTime: start,
        duration: 1500,
        ongoing: false,
        maxParticipants: 2,
        participants: [
          { userName: 'Bea', joinTime: start, duration: 1500 },
          { userId: 'u-7', joinTime: start + 60, duration: 1400 },
        ],
      },
    ]);
    const recordings = (await read(created.uid, 'recordings')).body.data;
    assert.equal(recordings.length, 2);
    const finished = recordings.find((recording: any) => recording.id === recordingId);
    assert.match(finished.downloadLink, new RegExp(`^https://daily-recordings\\.example/${recordingId}\\.mp4\\?signature=`));
    assert.equal(finished.roomName, name);
    assert.equal(finished.duration, 1400);
    assert.equal(recordings.find((recording: any) => recording.id !== recordingId).downloadLink, undefined, 'no link while recording');
    // Transcripts are asked for by the room's Daily id, which svc stores once Daily has answered the room's creation.
    let transcripts: string[] = [];
    await eventually(async () => (transcripts = (await read(created.uid, 'transcripts')).body.data).length > 0, 10_000);
    assert.equal(transcripts.length, 1, 'finished transcripts only');
    assert.match(transcripts[0]!, /^https:\/\/daily-transcripts\.example\/.+\.vtt\?signature=/);

    for (const what of ['conferencing-sessions', 'recordings', 'transcripts']) {
      const refused = await read(created.uid, what, stranger.apiKey);
      assert.equal(refused.status, 403, `${what}: ${refused.text}`);
    }
    assert.equal((await read('no-such-booking', 'recordings')).status, 404);
    daily.failNext(500);
    const failed = await read(created.uid, 'conferencing-sessions');
    assert.equal(failed.status, 400, failed.text);
    assert.equal(failed.body.error.details.reason, 'video_provider_failed');
  });

  test("signed recording and transcript events become the booking's webhooks, once each; a forged or stale one is refused", async () => {
    const subscribed = await api.request('POST', '/v2/webhooks', { key: host.apiKey, body: { subscriberUrl: `${hooks.url}/daily`, active: true, triggers: ['RECORDING_READY', 'RECORDING_TRANSCRIPTION_GENERATED'] } });
    assert.equal(subscribed.status, 201, subscribed.text);
    const created = await book(at(8, '10:00'));
    const name = roomName(created.location);
    await eventually(async () => daily.rooms.has(name), 10_000);
    const endpoint = `${api.baseUrl}/v2/conferencing/daily/webhook`;

    const verification = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"test":"test"}' });
    assert.equal(verification.status, 200, "Daily's check when the webhook is made");
    const recordingId = daily.addRecording(name, { start_ts: seconds(at(8, '10:00')), duration: 1700, max_participants: 2 });
    const payload = { recording_id: recordingId, room_name: name, start_ts: seconds(at(8, '10:00')), status: 'finished', max_participants: 2, duration: 1700, s3_key: `svc/${name}/1.mp4` };
    const forged = await daily.sendEvent(endpoint, 'recording.ready-to-download', payload, () => Buffer.from('not the signature').toString('base64'));
    assert.equal(forged.status, 401, await forged.text());
    const otherTime = await daily.sendEvent(endpoint, 'recording.ready-to-download', payload, (_timestamp, body) => daily.sign('1000000000', body));
    assert.equal(otherTime.status, 401, 'signed for another timestamp than the header');
    const body = JSON.stringify({ version: '1.0.0', type: 'recording.ready-to-download', id: 'evt-old', payload, event_ts: 0 });
    const old = String(Math.floor(Date.now() / 1000) - 600);
    const stale = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', 'x-webhook-timestamp': old, 'x-webhook-signature': daily.sign(old, body) }, body });
    assert.equal(stale.status, 401, 'rightly signed, 10 minutes ago: a replay');
    assert.equal((await daily.sendEvent(endpoint, 'recording.ready-to-download', payload)).status, 200);
    assert.equal((await daily.sendEvent(endpoint, 'recording.ready-to-download', payload)).status, 200, 'Daily sending it again');

    const [ready] = await hooks.waitFor(1, 10_000, (request) => request.url.endsWith('/daily') && request.json?.triggerEvent === 'RECORDING_READY');
    assert.equal(ready!.json.payload.uid, created.uid);
    assert.match(ready!.json.payload.downloadLink, new RegExp(`^https://daily-recordings\\.example/${recordingId}\\.mp4`));

    const transcriptId = daily.addTranscript(name);
    assert.equal((await daily.sendEvent(endpoint, 'transcript.ready-to-download', { id: transcriptId, room_name: name, room_id: daily.rooms.get(name)!.id, mtg_session_id: 'm-1', duration: 1650, status: 't_finished' })).status, 200);
    const [transcribed] = await hooks.waitFor(1, 10_000, (request) => request.url.endsWith('/daily') && request.json?.triggerEvent === 'RECORDING_TRANSCRIPTION_GENERATED');
    assert.equal(transcribed!.json.payload.uid, created.uid);
    assert.match(transcribed!.json.payload.downloadLinks.transcription[0], new RegExp(`^https://daily-transcripts\\.example/${transcriptId}\\.vtt`));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(hooks.requests.filter((request) => request.url.endsWith('/daily') && request.json?.triggerEvent === 'RECORDING_READY').length, 1, 'once per recording');
  });
});

describe('Daily webhooks without a secret configured', () => {
  test('are answered 404', async () => {
    const api = await createTestApp();
    try {
      const answer = await fetch(`${api.baseUrl}/v2/conferencing/daily/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-webhook-timestamp': '1', 'x-webhook-signature': 'x' }, body: '{}' });
      assert.equal(answer.status, 404);
      assert.equal(((await answer.json()) as any).error.details.reason, 'daily_webhook_not_configured');
    } finally {
      await api.close();
    }
  });
});
