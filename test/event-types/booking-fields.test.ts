import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertNamesField, create, created, patch, read } from './helpers.js';

const NAME = { isDefault: true, type: 'name', slug: 'name', required: true, disableOnPrefill: false };
const EMAIL = { isDefault: true, type: 'email', slug: 'email', required: true, hidden: false, disableOnPrefill: false };
const LOCATION = { isDefault: true, type: 'radioInput', slug: 'location', required: false, hidden: false };
const AFTER = [
  { isDefault: true, type: 'text', slug: 'title', required: true, hidden: true, disableOnPrefill: false },
  { isDefault: true, type: 'textarea', slug: 'notes', required: false, hidden: false, disableOnPrefill: false },
  { isDefault: true, type: 'multiemail', slug: 'guests', required: false, hidden: false, disableOnPrefill: false },
  { isDefault: true, type: 'textarea', slug: 'rescheduleReason', required: false, hidden: false, disableOnPrefill: false },
];
const custom = (fields: Record<string, unknown>) => ({ isDefault: false, hidden: false, disableOnPrefill: false, ...fields });

describe('event types: booking fields', () => {
  let api: TestApp;
  let key: string;
  before(async () => {
    api = await createTestApp();
    key = (await api.createUser()).apiKey;
  });
  after(() => api.close());

  test('every input kind becomes its output form, with the default fields around the custom ones', async () => {
    const bookingFields = [
      { type: 'name', label: 'Your name', placeholder: 'Jane Doe', disableOnPrefill: true },
      { type: 'email', label: 'Email', placeholder: 'jane@example.com' },
      { slug: 'location', label: 'Where?' },
      { type: 'phone', slug: 'phone-number', label: 'Phone', required: true, placeholder: '+1 555 0100' },
      { type: 'address', slug: 'home', label: 'Address', required: false, placeholder: '1 Main St' },
      { type: 'text', slug: 'company', label: 'Company', required: true, placeholder: 'Acme', disableOnPrefill: true },
      { type: 'number', slug: 'team-size', label: 'Team size', required: false, placeholder: '10' },
      { type: 'textarea', slug: 'agenda', label: 'Agenda', required: false, hidden: true },
      { type: 'select', slug: 'language', label: 'Language', required: true, placeholder: 'Pick one', options: ['javascript', 'python', 'cobol'] },
      { type: 'multiselect', slug: 'topics', label: 'Topics', required: false, placeholder: 'ignored', options: ['a', 'b'] },
      { type: 'multiemail', slug: 'cc', label: 'CC', required: false, placeholder: 'x@example.com' },
      { type: 'checkbox', slug: 'extras', label: 'Extras', required: false, options: ['x', 'y'] },
      { type: 'radio', slug: 'size', label: 'Size', required: true, options: ['s', 'm', 'l'] },
      { type: 'boolean', slug: 'agree', label: 'Agree?', required: true },
      { type: 'url', slug: 'site', label: 'Website', required: false, placeholder: 'https://' },
      { slug: 'title', label: 'Topic', required: false },
      { slug: 'notes', required: true, placeholder: 'Anything else?' },
      { slug: 'guests', hidden: true },
      { slug: 'rescheduleReason', label: 'Why?', disableOnPrefill: true },
    ];
    const expected = [
      { ...NAME, label: 'Your name', placeholder: 'Jane Doe', disableOnPrefill: true },
      { ...EMAIL, label: 'Email', placeholder: 'jane@example.com' },
      { ...LOCATION, label: 'Where?' },
      custom({ type: 'phone', slug: 'phone-number', label: 'Phone', required: true, placeholder: '+1 555 0100' }),
      custom({ type: 'address', slug: 'home', label: 'Address', required: false, placeholder: '1 Main St' }),
      custom({ type: 'text', slug: 'company', label: 'Company', required: true, placeholder: 'Acme', disableOnPrefill: true }),
      custom({ type: 'number', slug: 'team-size', label: 'Team size', required: false, placeholder: '10' }),
      custom({ type: 'textarea', slug: 'agenda', label: 'Agenda', required: false, hidden: true }),
      custom({ type: 'select', slug: 'language', label: 'Language', required: true, placeholder: 'Pick one', options: ['javascript', 'python', 'cobol'] }),
      custom({ type: 'multiselect', slug: 'topics', label: 'Topics', required: false, options: ['a', 'b'] }),
      custom({ type: 'multiemail', slug: 'cc', label: 'CC', required: false, placeholder: 'x@example.com' }),
      custom({ type: 'checkbox', slug: 'extras', label: 'Extras', required: false, options: ['x', 'y'] }),
      custom({ type: 'radio', slug: 'size', label: 'Size', required: true, options: ['s', 'm', 'l'] }),
      custom({ type: 'boolean', slug: 'agree', label: 'Agree?', required: true }),
      custom({ type: 'url', slug: 'site', label: 'Website', required: false, placeholder: 'https://' }),
      { isDefault: true, type: 'text', slug: 'title', required: false, hidden: false, label: 'Topic', disableOnPrefill: false },
      { isDefault: true, type: 'textarea', slug: 'notes', required: true, hidden: false, placeholder: 'Anything else?', disableOnPrefill: false },
      { isDefault: true, type: 'multiemail', slug: 'guests', required: false, hidden: true, disableOnPrefill: false },
      { isDefault: true, type: 'textarea', slug: 'rescheduleReason', required: false, hidden: false, label: 'Why?', disableOnPrefill: true },
    ];
    const eventType = await created(api, key, { bookingFields });
    assert.deepEqual(eventType.bookingFields, expected);
    assert.equal(eventType.disableGuests, true, 'a hidden guests field is disableGuests');
    assert.deepEqual((await read(api, key, eventType.id)).bookingFields, expected);
  });

  test('splitName replaces the name field with first and last name', async () => {
    const eventType = await created(api, key, { bookingFields: [{ type: 'splitName', firstNameLabel: 'First', lastNameLabel: 'Last', lastNamePlaceholder: 'Doe', lastNameRequired: true }] });
    assert.deepEqual(eventType.bookingFields[0], {
      isDefault: true, type: 'splitName', slug: 'splitName', firstNameLabel: 'First', firstNamePlaceholder: '', lastNameLabel: 'Last', lastNamePlaceholder: 'Doe', lastNameRequired: true, disableOnPrefill: false,
    });
    assert.deepEqual(eventType.bookingFields.slice(1), [EMAIL, LOCATION, ...AFTER]);
  });

  test('bookingFields replace: sending one custom field keeps only the default fields plus it', async () => {
    const eventType = await created(api, key, {
      bookingFields: [
        { type: 'text', slug: 'company', label: 'Company', required: true },
        { type: 'select', slug: 'plan', label: 'Plan', required: false, options: ['free', 'pro'] },
        { slug: 'notes', label: 'Notes label', required: true },
      ],
    });
    assert.equal(eventType.bookingFields.length, 9);
    const response = await patch(api, key, eventType.id, { bookingFields: [{ type: 'boolean', slug: 'newsletter', label: 'Newsletter?', required: false }] });
    assert.equal(response.status, 200, response.text);
    const expected = [NAME, EMAIL, LOCATION, custom({ type: 'boolean', slug: 'newsletter', label: 'Newsletter?', required: false }), ...AFTER];
    assert.deepEqual(response.body.data.bookingFields, expected);
    assert.deepEqual((await read(api, key, eventType.id)).bookingFields, expected);
    const defaultsOnly = await patch(api, key, eventType.id, { bookingFields: [{ type: 'name' }] });
    assert.deepEqual(defaultsOnly.body.data.bookingFields, [NAME, EMAIL, LOCATION, ...AFTER]);
  });

  test('disableGuests hides the guests field on create and on PATCH, and keeps the custom fields', async () => {
    const eventType = await created(api, key, { disableGuests: true, bookingFields: [{ type: 'text', slug: 'company', label: 'Company', required: true }] });
    assert.equal(eventType.bookingFields.find((field: { slug: string }) => field.slug === 'guests').hidden, true);
    const shown = await patch(api, key, eventType.id, { disableGuests: false });
    assert.equal(shown.body.data.disableGuests, false);
    assert.equal(shown.body.data.bookingFields.find((field: { slug: string }) => field.slug === 'guests').hidden, false);
    assert.ok(shown.body.data.bookingFields.some((field: { slug: string }) => field.slug === 'company'), 'custom fields stay');
    const both = await patch(api, key, eventType.id, { disableGuests: true, bookingFields: [{ slug: 'guests', hidden: false, label: 'Guests' }] });
    assert.deepEqual(both.body.data.bookingFields.find((field: { slug: string }) => field.slug === 'guests'), { ...AFTER[2], hidden: true, label: 'Guests' }, 'disableGuests wins over the sent field');
  });

  test('email may be hidden only when a required, visible attendee phone field is sent', async () => {
    const eventType = await created(api, key, {
      bookingFields: [
        { type: 'email', required: false, hidden: true },
        { type: 'phone', slug: 'attendeePhoneNumber', label: 'Phone', required: true },
      ],
    });
    assert.deepEqual(eventType.bookingFields.slice(1, 4), [
      { ...EMAIL, required: false, hidden: true },
      LOCATION,
      { isDefault: true, type: 'phone', slug: 'attendeePhoneNumber', required: true, label: 'Phone', hidden: false, disableOnPrefill: false },
    ]);
  });

  const RULES: [string, unknown[], string][] = [
    ['custom fields need a type', [{ slug: 'company', label: 'Company', required: true }], 'bookingFields.0.type'],
    ['the type is a known kind', [{ type: 'date', slug: 'day', label: 'Day', required: true }], 'bookingFields.0.type'],
    ['custom fields need a slug', [{ type: 'text', label: 'Company', required: true }], 'bookingFields.0.slug'],
    ['custom fields need a label', [{ type: 'text', slug: 'company', required: true }], 'bookingFields.0.label'],
    ['custom fields need required', [{ type: 'text', slug: 'company', label: 'Company' }], 'bookingFields.0.required'],
    ['select fields need options', [{ type: 'select', slug: 'plan', label: 'Plan', required: true }], 'bookingFields.0.options'],
    ['options are not empty', [{ type: 'radio', slug: 'plan', label: 'Plan', required: true, options: [] }], 'bookingFields.0.options'],
    ['a custom slug cannot be a default one', [{ type: 'text', slug: 'email', label: 'Mail', required: true }], 'bookingFields.0.slug'],
    ['custom slugs are unique', [{ type: 'text', slug: 'a', label: 'A', required: true }, { type: 'number', slug: 'a', label: 'B', required: true }], 'bookingFields.1.slug'],
    ['a slug is a plain key', [{ type: 'text', slug: 'has space', label: 'A', required: true }], 'bookingFields.0.slug'],
    ['one name field only', [{ type: 'name' }, { type: 'splitName' }], 'bookingFields.1.type'],
    ['a default field once only', [{ slug: 'notes' }, { slug: 'notes', required: true }], 'bookingFields.1.slug'],
    ['the email field stays visible', [{ type: 'email', hidden: true }], 'bookingFields.0.hidden'],
    ['the email field stays required', [{ type: 'email', required: false }], 'bookingFields.0.required'],
    ['a hidden attendee phone cannot replace the email', [{ type: 'phone', slug: 'attendeePhoneNumber', label: 'P', required: true, hidden: true }, { type: 'email', required: false }], 'bookingFields.1.required'],
    ['the list is not empty', [], 'bookingFields'],
  ];
  for (const [rule, bookingFields, property] of RULES) {
    test(`rule: ${rule}`, async () => assertNamesField(await create(api, key, { bookingFields }), property, rule));
  }
});
