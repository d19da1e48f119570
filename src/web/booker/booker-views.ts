// The booking page's HTML: the event type's facts, the month of days with free times, the chosen day's
// times, the display settings (time zone, 12/24 h, length), and the booking form built from the event
// type's booking fields. Plain links and forms: the page works without its script, which only loads a
// day's times in place and finds the browser's time zone.
import { type Html, html } from '../layout.js';
import type { BookerTexts } from './booker-texts.js';

/** Where the visitor is in the page: every link keeps these. */
export interface PickerState {
  path: string;
  tz: string;
  hour12: boolean;
  month: string;
  date: string | null;
  duration: number | null;
}

export function pageHref(state: PickerState, changes: Partial<Record<'tz' | 'h' | 'month' | 'date' | 'duration' | 'slot', string | null>> = {}): string {
  const params = new URLSearchParams();
  const values: Record<string, string | null> = {
    month: state.month,
    date: state.date,
    tz: state.tz,
    h: state.hour12 ? '12' : '24',
    duration: state.duration === null ? null : String(state.duration),
    ...changes,
  };
  for (const [name, value] of Object.entries(values)) if (value !== null && value !== undefined) params.set(name, value);
  // Relative to the page itself, with ':' and '/' as they are (both may stand in a query): every link stays
  // on its path, and a day's many times weigh less.
  return `?${params.toString().replace(/%3A/g, ':').replace(/%2F/g, '/')}`;
}

export function isTimeZone(value: string | undefined): value is string {
  if (!value || value.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const dateAt = (day: string) => new Date(`${day}T12:00:00Z`);

export const dayLabel = (day: string, lang: string) => new Intl.DateTimeFormat(lang, { dateStyle: 'full', timeZone: 'UTC' }).format(dateAt(day));

export const timeLabel = (iso: string, tz: string, hour12: boolean, lang: string) =>
  new Intl.DateTimeFormat(lang, { hour: 'numeric', minute: '2-digit', hour12, timeZone: tz }).format(new Date(iso));

export const whenLabel = (iso: string, tz: string, hour12: boolean, lang: string) =>
  `${new Intl.DateTimeFormat(lang, { dateStyle: 'full', timeStyle: 'short', hour12, timeZone: tz }).format(new Date(iso))} (${tz})`;

/** The day (YYYY-MM-DD) an instant falls on in `tz`. */
export const localDay = (instant: Date, tz: string) => new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(instant);

export const monthOf = (day: string) => day.slice(0, 7);

export function shiftMonth(month: string, by: number): string {
  const [year, number] = month.split('-').map(Number) as [number, number];
  const date = new Date(Date.UTC(year, number - 1 + by, 1));
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

export function daysInMonth(month: string): number {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, number, 0)).getUTCDate();
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export interface Slot {
  start: string;
  seatsRemaining?: number;
}

/** The month as a table of weeks; days with free times are links that show that day's times. */
export function monthTable(state: PickerState, slots: Record<string, Slot[]>, weekStart: string, texts: BookerTexts, today: string): Html {
  const first = WEEKDAYS.indexOf(weekStart) >= 0 ? WEEKDAYS.indexOf(weekStart) : 0;
  const count = daysInMonth(state.month);
  const offset = (dateAt(`${state.month}-01`).getUTCDay() - first + 7) % 7;
  const cells: Html[] = [];
  for (let index = 0; index < offset; index += 1) cells.push(html`<td></td>`);
  for (let day = 1; day <= count; day += 1) {
    const date = `${state.month}-${String(day).padStart(2, '0')}`;
    const free = slots[date]?.length ?? 0;
    const label = `${dayLabel(date, texts.lang)}: ${free ? texts.daySlots(free) : texts.noSlots}`;
    cells.push(
      free
        ? html`<td><a href="${pageHref(state, { date })}" data-day="${date}" aria-label="${label}"${date === state.date ? html` aria-current="date"` : html``}>${day}</a></td>`
        : html`<td><span aria-label="${label}">${day}</span></td>`,
    );
  }
  while (cells.length % 7 !== 0) cells.push(html`<td></td>`);
  const rows: Html[] = [];
  for (let index = 0; index < cells.length; index += 7) rows.push(html`<tr>${cells.slice(index, index + 7)}</tr>`);
  const names = Array.from({ length: 7 }, (_, index) => WEEKDAYS[(first + index) % 7]!);
  const monthName = new Intl.DateTimeFormat(texts.lang, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(dateAt(`${state.month}-15`));
  const canGoBack = state.month > monthOf(today);
  return html`<section aria-labelledby="month-heading">
<div class="nav">
${canGoBack ? html`<a href="${pageHref(state, { month: shiftMonth(state.month, -1), date: null })}" aria-label="${texts.previousMonth}">←</a>` : html`<span></span>`}
<h2 id="month-heading">${monthName}</h2>
<a href="${pageHref(state, { month: shiftMonth(state.month, 1), date: null })}" aria-label="${texts.nextMonth}">→</a>
</div>
<table class="month">
<caption class="visually-hidden">${monthName}</caption>
<thead><tr>${names.map((name) => html`<th scope="col"><abbr title="${name}">${name.slice(0, 2)}</abbr></th>`)}</tr></thead>
<tbody>${rows}</tbody>
</table>
${Object.keys(slots).length === 0 ? html`<p>${texts.noSlotsThisMonth}</p>` : html``}
</section>`;
}

/** The chosen day's times, announced when the script loads another day into it. */
export function daySection(state: PickerState, slots: Record<string, Slot[]>, texts: BookerTexts): Html {
  return html`<section id="day" aria-live="polite" aria-labelledby="day-heading">${dayContent(state, slots, texts)}</section>`;
}

/** The inside of the day's section (what the script fetches with partial=day): each time a link to the form. */
export function dayContent(state: PickerState, slots: Record<string, Slot[]>, texts: BookerTexts): Html {
  const day = state.date;
  const times = day ? (slots[day] ?? []) : [];
  const heading = day ? texts.slotsOf(dayLabel(day, texts.lang)) : texts.pickDay;
  const items = times.map((slot) => {
    const time = timeLabel(slot.start, state.tz, state.hour12, texts.lang);
    const seats = slot.seatsRemaining === undefined ? '' : ` · ${texts.seatsLeft(slot.seatsRemaining)}`;
    // The form needs no month or day: the start says both.
    return html`<li><a href="${pageHref(state, { slot: new Date(slot.start).toISOString().replace('.000Z', 'Z'), month: null, date: null })}">${time}${seats}</a></li>`;
  });
  return html`<h2 id="day-heading">${heading}</h2>
${day && times.length === 0 ? html`<p>${texts.noSlots}</p>` : html`<ul class="slots">${items}</ul>`}`;
}

/**
 * The zones the page lists itself (one per region's usual offset, and the booker's own); the script
 * replaces them with every zone the browser knows, which would weigh some 17 KB more in every page.
 */
const COMMON_ZONES = [
  'UTC', 'Pacific/Honolulu', 'America/Anchorage', 'America/Los_Angeles', 'America/Denver', 'America/Chicago', 'America/New_York', 'America/Halifax',
  'America/St_Johns', 'America/Mexico_City', 'America/Bogota', 'America/Sao_Paulo', 'America/Argentina/Buenos_Aires', 'Atlantic/Azores', 'Europe/London',
  'Europe/Lisbon', 'Europe/Paris', 'Europe/Berlin', 'Europe/Madrid', 'Europe/Rome', 'Europe/Warsaw', 'Europe/Athens', 'Europe/Helsinki', 'Europe/Istanbul',
  'Europe/Moscow', 'Africa/Lagos', 'Africa/Cairo', 'Africa/Johannesburg', 'Africa/Nairobi', 'Asia/Dubai', 'Asia/Tehran', 'Asia/Karachi', 'Asia/Kolkata',
  'Asia/Kathmandu', 'Asia/Dhaka', 'Asia/Bangkok', 'Asia/Jakarta', 'Asia/Singapore', 'Asia/Shanghai', 'Asia/Hong_Kong', 'Asia/Tokyo', 'Asia/Seoul',
  'Australia/Perth', 'Australia/Adelaide', 'Australia/Sydney', 'Australia/Lord_Howe', 'Pacific/Auckland', 'Pacific/Chatham',
];

/** Time zone, 12/24 h and (variable-length types) the length, as a GET form keeping the place. */
export function settingsForm(state: PickerState, lengths: number[], texts: BookerTexts): Html {
  const list = COMMON_ZONES.includes(state.tz) ? COMMON_ZONES : [state.tz, ...COMMON_ZONES];
  return html`<form method="get" action="${state.path}" class="row" aria-label="${texts.timeZone}" data-settings>
<input type="hidden" name="month" value="${state.month}">
${state.date ? html`<input type="hidden" name="date" value="${state.date}">` : html``}
<div><label for="tz">${texts.timeZone}</label><select id="tz" name="tz" data-all-zones>${list.map((zone) => html`<option${zone === state.tz ? html` selected` : html``}>${zone}</option>`)}</select></div>
<div><label for="h">${texts.timeFormat}</label><select id="h" name="h"><option value="12"${state.hour12 ? html` selected` : html``}>${texts.hours12}</option><option value="24"${state.hour12 ? html`` : html` selected`}>${texts.hours24}</option></select></div>
${
  lengths.length > 1
    ? html`<div><label for="duration">${texts.length}</label><select id="duration" name="duration">${lengths.map((minutes) => html`<option value="${minutes}"${minutes === state.duration ? html` selected` : html``}>${texts.minutes(minutes)}</option>`)}</select></div>`
    : html``
}
<div><button type="submit" class="secondary">${texts.change}</button></div>
</form>`;
}

export interface FormField {
  slug: string;
  type: string;
  isDefault?: boolean;
  label?: string;
  placeholder?: string;
  required?: boolean;
  hidden?: boolean;
  options?: string[];
  firstNameLabel?: string;
  lastNameLabel?: string;
  lastNameRequired?: boolean;
}

const requiredMark = (texts: BookerTexts, required: boolean | undefined) => (required ? html` <span aria-hidden="true">*</span><span class="visually-hidden"> ${texts.required}</span>` : html``);

function input(id: string, label: string, type: string, values: Record<string, string>, texts: BookerTexts, options: { required?: boolean | undefined; placeholder?: string | undefined; autocomplete?: string } = {}): Html {
  return html`<label for="${id}">${label}${requiredMark(texts, options.required)}</label>
<input type="${type}" id="${id}" name="${id}" value="${values[id] ?? ''}"${options.required ? html` required` : html``}${options.placeholder ? html` placeholder="${options.placeholder}"` : html``}${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : html``}>`;
}

export interface LocationChoice {
  value: string;
  label: string;
  /** The booker gives the place or number: the name of the input that takes it. */
  asks?: 'address' | 'phone' | 'location';
}

/** One field of the booking form, named by its slug (custom answers go to bookingFieldsResponses). */
function formField(field: FormField, values: Record<string, string>, texts: BookerTexts, locations: LocationChoice[], rescheduling: boolean): Html {
  const label = field.label || '';
  switch (field.slug) {
    case 'name':
      if (field.firstNameLabel !== undefined || field.lastNameLabel !== undefined) {
        return html`${input('firstName', field.firstNameLabel || texts.firstName, 'text', values, texts, { required: true, autocomplete: 'given-name' })}
${input('lastName', field.lastNameLabel || texts.lastName, 'text', values, texts, { required: field.lastNameRequired, autocomplete: 'family-name' })}`;
      }
      return input('name', label || texts.name, 'text', values, texts, { required: true, placeholder: field.placeholder, autocomplete: 'name' });
    case 'email':
      return input('email', label || texts.email, 'email', values, texts, { required: field.required, placeholder: field.placeholder, autocomplete: 'email' });
    case 'location':
      if (locations.length < 2 && !locations[0]?.asks) return html``;
      return html`<fieldset><legend>${label || texts.location}</legend>
${locations.map(
  (choice, index) => html`<div class="choice"><input type="radio" id="location-${index}" name="location" value="${choice.value}"${(values.location ?? locations[0]!.value) === choice.value ? html` checked` : html``}><label for="location-${index}">${choice.label}</label></div>`,
)}
${locations.some((choice) => choice.asks) ? input('locationDetail', texts.location, 'text', values, texts) : html``}
</fieldset>`;
    case 'title':
      return html``;
    case 'rescheduleReason':
      if (!rescheduling) return html``;
      return html`<label for="rescheduleReason">${label || texts.rescheduleReason}</label><textarea id="rescheduleReason" name="rescheduleReason" rows="3">${values.rescheduleReason ?? ''}</textarea>`;
    case 'notes':
      return html`<label for="notes">${label || texts.notes}${requiredMark(texts, field.required)}</label><textarea id="notes" name="notes" rows="3"${field.required ? html` required` : html``}>${values.notes ?? ''}</textarea>`;
    case 'guests':
      return html`<label for="guests">${label || texts.guests}</label><p id="guests-hint" class="visually-hidden">${texts.guestsHint}</p><textarea id="guests" name="guests" rows="2" aria-describedby="guests-hint" placeholder="${texts.guestsHint}">${values.guests ?? ''}</textarea>`;
  }
  return customField(field, values, texts);
}

function customField(field: FormField, values: Record<string, string>, texts: BookerTexts): Html {
  const id = `f-${field.slug}`;
  const label = field.label || field.slug;
  const options = field.options ?? [];
  switch (field.type) {
    case 'textarea':
    case 'multiemail':
    case 'address':
      return html`<label for="${id}">${label}${requiredMark(texts, field.required)}</label><textarea id="${id}" name="${id}" rows="3"${field.required ? html` required` : html``}>${values[id] ?? ''}</textarea>`;
    case 'select':
      return html`<label for="${id}">${label}${requiredMark(texts, field.required)}</label><select id="${id}" name="${id}"${field.required ? html` required` : html``}><option value=""></option>${options.map((option) => html`<option${values[id] === option ? html` selected` : html``}>${option}</option>`)}</select>`;
    case 'multiselect':
    case 'checkbox':
    case 'radio': {
      const kind = field.type === 'radio' ? 'radio' : 'checkbox';
      const chosen = new Set((values[id] ?? '').split('\n'));
      return html`<fieldset><legend>${label}${requiredMark(texts, field.required)}</legend>${options.map(
        (option, index) =>
          html`<div class="choice"><input type="${kind}" id="${id}-${index}" name="${id}" value="${option}"${chosen.has(option) ? html` checked` : html``}${kind === 'radio' && field.required ? html` required` : html``}><label for="${id}-${index}">${option}</label></div>`,
      )}</fieldset>`;
    }
    case 'boolean':
      return html`<div class="choice"><input type="checkbox" id="${id}" name="${id}" value="true"${values[id] === 'true' ? html` checked` : html``}${field.required ? html` required` : html``}><label for="${id}">${label}</label></div>`;
    case 'phone':
      return input(id, label, 'tel', values, texts, { required: field.required, placeholder: field.placeholder ?? '+14155550100', autocomplete: 'tel' });
    case 'number':
      return input(id, label, 'number', values, texts, { required: field.required, placeholder: field.placeholder });
    case 'url':
      return input(id, label, 'url', values, texts, { required: field.required, placeholder: field.placeholder });
    default:
      return input(id, label, 'text', values, texts, { required: field.required, placeholder: field.placeholder });
  }
}

export interface BookingFormOptions {
  state: PickerState;
  slot: string;
  fields: FormField[];
  locations: LocationChoice[];
  values: Record<string, string>;
  idempotencyKey: string;
  rescheduling: boolean;
  texts: BookerTexts;
}

export function bookingForm(options: BookingFormOptions): Html {
  const { state, slot, texts } = options;
  // Moving a booking asks only why: who books and their answers stay as they were.
  const shown = options.fields.filter((field) => field.hidden !== true && (!options.rescheduling || field.slug === 'rescheduleReason'));
  return html`<section aria-labelledby="form-heading">
<h2 id="form-heading">${texts.yourDetails}</h2>
<p>${texts.chosenTime(whenLabel(slot, state.tz, state.hour12, texts.lang))} <a href="${pageHref(state, { date: localDay(new Date(slot), state.tz) })}">${texts.changeTime}</a></p>
<form method="post" action="${pageHref(state, { slot })}">
<input type="hidden" name="idem" value="${options.idempotencyKey}">
<input type="hidden" name="slot" value="${slot}">
${shown.map((field) => formField(field, options.values, texts, options.locations, options.rescheduling))}
<button type="submit">${options.rescheduling ? texts.reschedule : texts.book}</button>
</form>
</section>`;
}

export const factsLine = (parts: string[]) => html`<p class="facts">${parts.filter(Boolean).join(' · ')}</p>`;

export const alertBox = (message: string | null) => (message ? html`<p class="alert" role="alert">${message}</p>` : html``);

