// The booking pages' words, one table per language (English first): a page is rendered in the
// booker's language (Accept-Language) where a table exists, else in English.

export interface BookerTexts {
  lang: string;
  minutes: (count: number) => string;
  hostedBy: (names: string) => string;
  length: string;
  location: string;
  where: Record<string, string>;
  timeZone: string;
  change: string;
  timeFormat: string;
  hours12: string;
  hours24: string;
  month: string;
  previousMonth: string;
  nextMonth: string;
  daySlots: (count: number) => string;
  noSlots: string;
  noSlotsThisMonth: string;
  pickDay: string;
  slotsOf: (day: string) => string;
  seatsLeft: (count: number) => string;
  yourDetails: string;
  chosenTime: (when: string) => string;
  changeTime: string;
  name: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  notes: string;
  guests: string;
  guestsHint: string;
  rescheduleReason: string;
  cancellationReason: string;
  required: string;
  book: string;
  reschedule: string;
  rescheduleTitle: (title: string) => string;
  currentTime: (when: string) => string;
  taken: string;
  notSent: string;
  notChanged: string;
  scheduled: string;
  requested: string;
  waiting: string;
  rescheduled: string;
  cancelledTitle: string;
  cancelled: string;
  rejected: string;
  what: string;
  when: string;
  who: string;
  join: string;
  yourTime: string;
  hostTime: string;
  addToCalendar: string;
  google: string;
  outlook: string;
  ics: string;
  manage: string;
  cancel: string;
  cancelTitle: string;
  cancelConfirm: string;
  keep: string;
  past: string;
  payToConfirm: string;
  payNotice: (amount: string, until: string) => string;
  payButton: (amount: string) => string;
  paymentProcessing: string;
  paymentNotCompleted: string;
  payment: string;
  paymentStatus: Record<string, string>;
  released: string;
}

const en: BookerTexts = {
  lang: 'en',
  minutes: (count) => `${count} min`,
  hostedBy: (names) => `With ${names}`,
  length: 'Length',
  location: 'Location',
  where: {
    integration: 'Video call',
    address: 'In person',
    attendeeAddress: 'At an address you give',
    attendeePhone: 'By phone: you give the number',
    organizersDefaultApp: 'Video call',
    phone: 'By phone',
    attendeeDefined: 'A place you give',
    link: 'Online',
  },
  timeZone: 'Time zone',
  change: 'Change',
  timeFormat: 'Time format',
  hours12: '12 h',
  hours24: '24 h',
  month: 'Month',
  previousMonth: 'Previous month',
  nextMonth: 'Next month',
  daySlots: (count) => (count === 1 ? '1 time available' : `${count} times available`),
  noSlots: 'No times available',
  noSlotsThisMonth: 'No times are available this month. Try the next month.',
  pickDay: 'Pick a day to see its times.',
  slotsOf: (day) => `Times on ${day}`,
  seatsLeft: (count) => (count === 1 ? '1 seat left' : `${count} seats left`),
  yourDetails: 'Your details',
  chosenTime: (when) => `You chose ${when}.`,
  changeTime: 'Choose another time',
  name: 'Your name',
  firstName: 'First name',
  lastName: 'Last name',
  email: 'Email address',
  phone: 'Phone number (with country code, e.g. +14155550100)',
  notes: 'Additional notes',
  guests: 'Guests',
  guestsHint: 'Email addresses of people to invite too, one per line.',
  rescheduleReason: 'Reason for rescheduling',
  cancellationReason: 'Reason for cancelling',
  required: '(required)',
  book: 'Book',
  reschedule: 'Reschedule',
  rescheduleTitle: (title) => `Reschedule: ${title}`,
  currentTime: (when) => `Currently booked for ${when}.`,
  taken: 'That time was taken a moment ago. Here are the times still free; please pick another.',
  notSent: 'The booking was not made:',
  notChanged: 'Nothing was changed:',
  scheduled: 'This meeting is scheduled',
  requested: 'Your request was sent',
  waiting: 'Waiting for the host to confirm. You will get an email when they do.',
  rescheduled: 'This meeting was rescheduled',
  cancelledTitle: 'This meeting is cancelled',
  cancelled: 'This booking was cancelled.',
  rejected: 'The host declined this booking.',
  what: 'What',
  when: 'When',
  who: 'Who',
  join: 'Join the meeting',
  yourTime: 'Your time',
  hostTime: "Host's time",
  addToCalendar: 'Add to calendar',
  google: 'Google Calendar',
  outlook: 'Outlook',
  ics: 'Calendar file (.ics)',
  manage: 'Need to make a change?',
  cancel: 'Cancel',
  cancelTitle: 'Cancel this meeting',
  cancelConfirm: 'Cancel the meeting',
  keep: 'Keep it',
  past: 'This meeting is over.',
  payToConfirm: 'Complete your payment',
  payNotice: (amount, until) => `This time is held for you until ${until}: pay ${amount} to confirm the booking.`,
  payButton: (amount) => `Pay ${amount}`,
  paymentProcessing: 'Thank you: Stripe is confirming your payment. Reload this page in a moment.',
  paymentNotCompleted: 'The payment was not completed.',
  payment: 'Payment',
  paymentStatus: { awaiting: 'Not paid yet', paid: 'Paid', expired: 'Not paid in time', cancelled: 'Not paid', refunding: 'Being refunded', refunded: 'Refunded' },
  released: 'This booking was released: it was not paid in time.',
};

const TABLES: Record<string, BookerTexts> = { en };

/** The table for the first language of Accept-Language svc has, else English. */
export function bookerTexts(acceptLanguage: string | undefined): BookerTexts {
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]!.trim().toLowerCase();
    const table = TABLES[tag] ?? TABLES[tag.split('-')[0]!];
    if (table) return table;
  }
  return en;
}
