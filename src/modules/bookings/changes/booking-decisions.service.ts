import { lockHostTime } from '../../../db/locks.js';
import { badRequest, conflict, forbidden } from '../../../lib/errors.js';
import { explainUnavailable, findSlot } from '../../../scheduling/slot-check.js';
import { buildSlotQuery, resolveSlotTarget, type SlotEventType } from '../../slots/slots.service.js';
import { announceHosts, bookingNotFound, callerIsOrganizer, type ChangeContext, type FoundBookings, hostIds, MINUTE, seriesRecords } from './booking-changes.service.js';
import { recordBookingEvent } from '../booking-events.js';
import { awaitsPayment, settleOnClose } from '../../payments/payments.service.js';
import * as repo from '../bookings.repository.js';
import type { BookingRow } from '../bookings.repository.js';

type Decision = { kind: 'confirm' } | { kind: 'decline'; reason: string | undefined };

const CONFIRM_RULES = { minimumBookingNotice: 0, bookingWindow: null };

/** Confirms a pending booking (every pending occurrence of its series) if its time is still free. */
export function confirmBooking(ctx: ChangeContext, uid: string): Promise<FoundBookings> {
  return decide(ctx, uid, { kind: 'confirm' });
}

/** Declines a pending booking (every pending occurrence of its series). */
export function declineBooking(ctx: ChangeContext, uid: string, reason: string | undefined): Promise<FoundBookings> {
  return decide(ctx, uid, { kind: 'decline', reason });
}

async function decide(ctx: ChangeContext, uid: string, decision: Decision): Promise<FoundBookings> {
  const { tx } = ctx;
  const found = await repo.findBookingByUid(tx, uid);
  const seriesUid = found ? found.recurringBookingUid : uid;
  const rows = seriesUid === null ? [found!] : await repo.findSeriesBookings(tx, seriesUid);
  if (rows.length === 0) throw bookingNotFound(uid);
  const subject = found ?? rows[0]!;
  if (!callerIsOrganizer(ctx, subject)) throw forbidden('not_booking_organizer', 'You are not authorized to access this resource');
  const slotEventType =
    decision.kind === 'confirm' && subject.eventTypeId !== null ? await resolveSlotTarget(tx, { kind: 'eventTypeId', eventTypeId: subject.eventTypeId }) : null;
  await lockHostTime(tx, [...hostIds(rows), ...(slotEventType?.hosts.map((host) => host.userId) ?? [])]);

  const fresh = seriesUid === null ? [(await repo.lockBookingByUid(tx, uid))!] : await repo.findSeriesBookings(tx, seriesUid);
  const pending = fresh.filter((row) => row.status === 'pending');
  const current = found ? fresh.find((row) => row.uid === uid)! : (pending[0] ?? fresh[0]!);
  if (current.status !== 'pending') {
    const verb = decision.kind === 'confirm' ? 'confirmed' : 'declined';
    throw badRequest('booking_not_pending', `Only a pending booking can be ${verb}, and this one is ${current.status}.`);
  }
  if (decision.kind === 'confirm') {
    for (const row of pending) {
      if (await awaitsPayment(tx, row)) throw badRequest('booking_awaiting_payment', `Booking with uid=${row.uid} waits for its payment: it can be confirmed once paid.`);
    }
  }
  const updated: BookingRow[] = [];
  for (const row of pending) {
    if (slotEventType) await assertStillFree(ctx, slotEventType, row);
    const changes = decision.kind === 'confirm' ? { status: 'accepted' as const } : { status: 'rejected' as const, rejectionReason: decision.reason ?? null };
    updated.push(await repo.updateBooking(tx, row.id, changes));
  }
  await announceHosts(ctx, updated);
  for (const record of await repo.loadRecords(tx, updated)) {
    if (decision.kind === 'confirm') await recordBookingEvent(ctx, 'BOOKING_CREATED', record, {}, [], { kind: 'confirmed' });
    else {
      // Declining refunds a paid booking, and closes an unpaid one's payment page.
      await settleOnClose(tx, record, 'host', ctx.now);
      await recordBookingEvent(ctx, 'BOOKING_REJECTED', record, { rejectionReason: decision.reason ?? null });
    }
  }
  if (seriesUid !== null) return seriesRecords(tx, seriesUid);
  return { records: await repo.loadRecords(tx, [updated[0]!]), series: false };
}

/**
 * Confirming checks the time again, as booking it would now: only notice and booking window are
 * waived (they applied when it was requested). Another request for the same slot confirmed first,
 * or anything booked since, makes this a 409.
 */
async function assertStillFree(ctx: ChangeContext, eventType: SlotEventType, booking: BookingRow): Promise<void> {
  const start = booking.startAt.getTime();
  const duration = Math.round((booking.endAt.getTime() - start) / MINUTE);
  const relaxed = { ...eventType, rules: { ...eventType.rules, ...CONFIRM_RULES } };
  const query = await buildSlotQuery(ctx.tx, relaxed, { from: start, to: start + 1, duration, now: ctx.now, ignoreBookingUid: booking.uid });
  const slot = findSlot(query, start);
  if (slot?.hostIds.includes(booking.userId)) return;
  throw conflict('booking_conflict', "This booking's time is no longer available: another booking holds it.", {
    start: booking.startAt.toISOString(),
    cause: slot ? 'not_available' : explainUnavailable(query, start),
  });
}
