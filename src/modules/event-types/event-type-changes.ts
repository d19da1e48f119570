// An event-type write as the service sees it: the parsed body (a key left undefined was not sent), the
// state it makes of the stored one, and the rules that state must keep.
import { defaultBookingFields, withGuestsHidden } from './booking-fields.js';
import { assertEventTypeRules, NO_SEATS, type SeatOptions } from './event-type-limits.js';
import type {
  BookerActiveBookingsLimit,
  BookingWindow,
  CalendarInvites,
  ConfirmationPolicy,
  IntervalLimits,
  Recurrence,
  StoredBookingField,
  StoredLocation,
  StoredRefundPolicy,
} from './event-type-model.js';
import { DEFAULT_SETTINGS } from './event-type-model.js';
import { applyCalendarInvites, applySettings, type parseSettings } from './event-type-settings.js';
import type { EventTypeRow, EventTypeState } from './event-types.repository.js';
import { DEFAULT_LOCATIONS } from './locations.js';
import { assertPriceRules } from '../payments/event-type-prices.js';

/** A parsed create or update body: a key that is undefined was not sent; null resets the setting. */
export interface EventTypeChanges {
  title?: string | undefined;
  slug?: string | undefined;
  description?: string | undefined;
  lengthInMinutes?: number | undefined;
  lengthInMinutesOptions?: number[] | undefined;
  slotInterval?: number | undefined;
  minimumBookingNotice?: number | undefined;
  beforeEventBuffer?: number | undefined;
  afterEventBuffer?: number | undefined;
  offsetStart?: number | undefined;
  scheduleId?: number | undefined;
  hidden?: boolean | undefined;
  onlyShowFirstAvailableSlot?: boolean | undefined;
  showOptimizedSlots?: boolean | undefined;
  bookingRequiresAuthentication?: boolean | undefined;
  locations?: StoredLocation[] | undefined;
  /** The complete list (default fields included). */
  bookingFields?: StoredBookingField[] | undefined;
  disableGuests?: boolean | undefined;
  bookingLimitsCount?: IntervalLimits | undefined;
  bookingLimitsDuration?: IntervalLimits | undefined;
  bookerActiveBookingsLimit?: BookerActiveBookingsLimit | null | undefined;
  bookingWindow?: BookingWindow | null | undefined;
  confirmationPolicy?: ConfirmationPolicy | null | undefined;
  recurrence?: Recurrence | null | undefined;
  seats?: SeatOptions | undefined;
  /** Minor units; above 0 the event type is paid. */
  price?: number | undefined;
  /** Lower-case ISO 4217. */
  currency?: string | undefined;
  refundPolicy?: StoredRefundPolicy | null | undefined;
  destinationCalendar?: { integration: string; externalId: string } | undefined;
  settings: ReturnType<typeof parseSettings>;
  calendarInvites?: CalendarInvites | undefined;
  /** Audiences of `calendarInvites` whose custom template sanitization emptied (`settleEmptiedInvites`). */
  emptiedCalendarInvites?: ('host' | 'guest')[] | undefined;
}

export interface CreateEventTypeInput extends EventTypeChanges {
  title: string;
  slug: string;
  lengthInMinutes: number;
}

/** The reference's values for every field a create body leaves out. */
export function initialState(): EventTypeState {
  return {
    slug: '',
    title: '',
    description: '',
    lengthInMinutes: 0,
    lengthInMinutesOptions: [],
    slotInterval: null,
    minimumBookingNotice: 120,
    beforeEventBuffer: 0,
    afterEventBuffer: 0,
    offsetStart: 0,
    scheduleId: null,
    hidden: false,
    ...NO_SEATS,
    onlyShowFirstAvailableSlot: false,
    showOptimizedSlots: false,
    bookingRequiresAuthentication: false,
    locations: DEFAULT_LOCATIONS,
    bookingFields: defaultBookingFields(),
    bookingLimitsCount: null,
    bookingLimitsDuration: null,
    bookerActiveBookingsLimit: null,
    bookingWindow: null,
    confirmationPolicy: null,
    recurrence: null,
    settings: DEFAULT_SETTINGS,
    calendarInvites: null,
    price: 0,
    currency: 'usd',
    refundPolicy: null,
    teamId: null,
    parentId: null,
    schedulingType: null,
    assignAllTeamMembers: false,
    rescheduleWithSameRoundRobinHost: false,
    isRRWeightsEnabled: false,
    assignRRMembersUsingSegment: false,
    rrSegmentQuery: null,
    emailSettings: null,
  };
}

export function stateOf(row: EventTypeRow): EventTypeState {
  const { id: _id, userId: _userId, createdAt: _createdAt, updatedAt: _updatedAt, ...state } = row;
  return state;
}

export function applyChanges(state: EventTypeState, changes: EventTypeChanges): EventTypeState {
  const { settings, seats, bookingFields, disableGuests, calendarInvites, emptiedCalendarInvites: _settledLater, destinationCalendar: _checked, ...columns } = changes;
  const sentColumns = Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined)) as Partial<EventTypeState>;
  const fields = bookingFields ?? state.bookingFields;
  return {
    ...state,
    ...sentColumns,
    ...(seats ?? {}),
    bookingFields: disableGuests === undefined ? fields : withGuestsHidden(fields, disableGuests),
    settings: applySettings(state.settings, settings),
    calendarInvites: calendarInvites ? applyCalendarInvites(state.calendarInvites, calendarInvites) : state.calendarInvites,
  };
}

/** The wire fields a request sent, so a rule that ties two fields together can name the one just changed. */
export function sentFields(changes: EventTypeChanges): Set<string> {
  const { settings, ...rest } = changes;
  const columns = Object.entries(rest).filter(([, value]) => value !== undefined).map(([key]) => key);
  return new Set([...columns, ...Object.keys(settings)]);
}

export function assertRules(state: EventTypeState, changes: EventTypeChanges): void {
  assertEventTypeRules(
    {
      lengthInMinutes: state.lengthInMinutes,
      lengthInMinutesOptions: state.lengthInMinutesOptions,
      locationCount: state.locations.length,
      seatsPerTimeSlot: state.seatsPerTimeSlot,
      confirmationPolicy: state.confirmationPolicy,
      recurrence: state.recurrence,
      bookerActiveBookingsLimit: state.bookerActiveBookingsLimit,
    },
    sentFields(changes),
  );
  assertPriceRules(state, sentFields(changes));
}
