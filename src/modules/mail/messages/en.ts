import type { MailTexts } from './texts.js';

/** English: the fallback for every locale without a table of its own. Booking placeholders: {title}, {when}, {name}. */
export const en: MailTexts = {
  kinds: {
    scheduled: {
      host: { subject: 'New event: {title} at {when}', heading: 'A new event has been scheduled' },
      attendee: { subject: 'Confirmed: {title} at {when}', heading: 'Your event has been scheduled' },
    },
    requested: {
      host: { subject: 'Action needed: {title} at {when}', heading: 'A booking is waiting for your confirmation' },
      attendee: { subject: 'Submitted: {title} at {when}', heading: 'Your booking has been submitted and awaits confirmation' },
    },
    confirmed: {
      host: { subject: 'Confirmed: {title} at {when}', heading: 'You confirmed this booking' },
      attendee: { subject: 'Confirmed: {title} at {when}', heading: 'Your booking has been confirmed' },
    },
    declined: {
      host: { subject: 'Declined: {title} at {when}', heading: 'This booking was declined' },
      attendee: { subject: 'Declined: {title} at {when}', heading: 'Your booking was declined' },
    },
    rescheduled: {
      host: { subject: 'Rescheduled: {title} at {when}', heading: 'An event has been rescheduled' },
      attendee: { subject: 'Rescheduled: {title} at {when}', heading: 'Your event has been rescheduled' },
    },
    cancelled: {
      host: { subject: 'Cancelled: {title} at {when}', heading: 'An event has been cancelled' },
      attendee: { subject: 'Cancelled: {title} at {when}', heading: 'Your event has been cancelled' },
    },
    reassigned: {
      host: { subject: 'New event assigned: {title} at {when}', heading: 'An event has been assigned to you' },
      attendee: { subject: 'Updated: {title} at {when}', heading: 'Your event has a new host' },
    },
    reassignedAway: {
      host: { subject: 'Reassigned: {title} at {when}', heading: 'This event has been reassigned to another host' },
      attendee: { subject: 'Reassigned: {title} at {when}', heading: 'This event has been reassigned' },
    },
    seatAdded: {
      host: { subject: 'New attendee: {title} at {when}', heading: '{name} booked a seat' },
      attendee: { subject: 'Confirmed: {title} at {when}', heading: 'Your seat has been booked' },
    },
    seatCancelled: {
      host: { subject: 'Seat cancelled: {title} at {when}', heading: '{name} cancelled their seat' },
      attendee: { subject: 'Cancelled: {title} at {when}', heading: 'Your seat has been cancelled' },
    },
    guestsAdded: {
      host: { subject: 'Guests added: {title} at {when}', heading: 'Guests have been added to this event' },
      attendee: { subject: 'Updated: {title} at {when}', heading: 'Guests have been added to your event' },
    },
    locationChanged: {
      host: { subject: 'Location changed: {title} at {when}', heading: 'The location of this event has changed' },
      attendee: { subject: 'Location changed: {title} at {when}', heading: 'The location of your event has changed' },
    },
  },
  oauthClient: {
    greeting: 'Hello {name},',
    greetingWithoutName: 'Hello,',
    decisions: {
      approved: { subject: 'Your OAuth client "{client}" was approved', body: 'Your OAuth client "{client}" ({clientId}) was approved. Users can now authorize it.' },
      rejected: { subject: 'Your OAuth client "{client}" was rejected', body: 'Your OAuth client "{client}" ({clientId}) was rejected. It cannot be used to authorize users.' },
    },
  },
  teamInvitation: {
    greeting: 'Hello {name},',
    greetingWithoutName: 'Hello,',
    subject: 'Invitation to join "{team}"',
    body: [
      '{inviter} invited you to join "{team}" as {role}.',
      'Until you accept, the team sees nothing of yours and cannot book you.',
      '',
      'Accept or decline here (the link works for {days} days): {link}',
      '',
      'Or with your API key:',
      '  POST {acceptPath}',
      '  POST {declinePath}',
      '',
      'If you did not expect this, decline it or ignore this message.',
    ].join('\n'),
  },
  calendarBroken: {
    greeting: 'Hello {name},',
    greetingWithoutName: 'Hello,',
    subject: 'Your calendar "{calendar}" can no longer be read',
    body: [
      '{app} refused svc\'s access to your calendar "{calendar}".',
      'Until you connect it again, svc cannot see when you are busy, so you are shown as unavailable to everyone booking you.',
      '',
      'Connect it again (or disconnect it) through your scheduling app, or with the API: GET /v2/calendars lists the connection as invalid.',
    ].join('\n'),
  },
  meetingFailed: {
    greeting: 'Hello {name},',
    greetingWithoutName: 'Hello,',
    subject: 'No {app} meeting yet for "{title}"',
    body: [
      '{app} could not make the meeting of your booking "{title}" ({when}): {reason}.',
      'The booking stands, and its attendees were told of it without a meeting link.',
      '{next}',
      '',
      'To fix it, connect {app} again ({connect}), or give the booking another location (PATCH /v2/bookings/{uid}/location).',
    ].join('\n'),
    retrying: 'svc keeps trying for a day: once the meeting is made, everyone gets its link in an updated invitation.',
    givenUp: 'svc has stopped trying.',
  },
  labels: {
    what: 'What',
    when: 'When',
    who: 'Who',
    where: 'Where',
    description: 'Additional notes',
    reason: 'Reason',
    previously: 'Previously',
    organizer: 'Organizer',
    guest: 'Guest',
    noLocation: 'No location given',
    manage: 'Need to make a change?',
    reschedule: 'Reschedule',
    cancel: 'Cancel',
    confirmOrDecline: 'Confirm or decline it in svc.',
    joinAsHost: 'Join as host',
  },
};
