// Stripe's currency rules for paid event types: the supported codes, minor-unit digits, minimum and
// maximum amounts, three-decimal rounding, and money formatting. Nothing here reads the machine's zone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  checkPrice,
  formatMoney,
  MAX_AMOUNT,
  MINIMUM_CHARGE,
  minorUnitDigits,
  STRIPE_CURRENCIES,
  THREE_DECIMAL,
  ZERO_DECIMAL,
} from '../../src/modules/payments/currencies.js';

describe('the currency lists', () => {
  test('Stripe supports over 135 currencies, all lowercase three-letter codes', () => {
    assert.ok(STRIPE_CURRENCIES.size >= 135, `only ${STRIPE_CURRENCIES.size}`);
    for (const code of STRIPE_CURRENCIES) assert.match(code, /^[a-z]{3}$/);
    for (const code of ['usd', 'eur', 'gbp', 'jpy', 'inr', 'brl', 'sle', 'isk']) assert.ok(STRIPE_CURRENCIES.has(code), code);
  });

  test('every zero-decimal, three-decimal and minimum-listed currency is a supported one', () => {
    for (const code of [...ZERO_DECIMAL, ...THREE_DECIMAL, ...MINIMUM_CHARGE.keys()]) assert.ok(STRIPE_CURRENCIES.has(code), code);
  });

  test("Stripe's zero- and three-decimal lists, exactly", () => {
    assert.deepEqual(
      [...ZERO_DECIMAL].sort(),
      ['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf'],
    );
    assert.deepEqual([...THREE_DECIMAL].sort(), ['bhd', 'jod', 'kwd', 'omr', 'tnd']);
  });

  test('minimums and the maximum in minor units', () => {
    assert.equal(MINIMUM_CHARGE.get('usd'), 50);
    assert.equal(MINIMUM_CHARGE.get('gbp'), 30);
    assert.equal(MINIMUM_CHARGE.get('huf'), 17500);
    assert.equal(MINIMUM_CHARGE.get('jpy'), 50);
    assert.equal(MINIMUM_CHARGE.get('idr'), undefined);
    assert.equal(MAX_AMOUNT, 99_999_999);
  });

  test('minorUnitDigits: 0, 2 or 3, whatever the case of the code', () => {
    assert.equal(minorUnitDigits('usd'), 2);
    assert.equal(minorUnitDigits('jpy'), 0);
    assert.equal(minorUnitDigits('JPY'), 0);
    assert.equal(minorUnitDigits('kwd'), 3);
    assert.equal(minorUnitDigits('Tnd'), 3);
    // Stripe takes ISK and HUF with two decimals although ISO gives them none.
    assert.equal(minorUnitDigits('isk'), 2);
    assert.equal(minorUnitDigits('huf'), 2);
  });
});

describe('checkPrice', () => {
  test('a free event is fine in any supported currency, normalized to lowercase', () => {
    assert.deepEqual(checkPrice(0, 'usd'), { ok: true, currency: 'usd' });
    assert.deepEqual(checkPrice(0, 'JPY'), { ok: true, currency: 'jpy' });
    assert.deepEqual(checkPrice(0, 'huf'), { ok: true, currency: 'huf' });
    assert.deepEqual(checkPrice(0, 'kwd'), { ok: true, currency: 'kwd' });
  });

  test('the price must be a whole number of minor units, 0 or more', () => {
    for (const price of [1.5, -1, -50, Number.NaN, Number.POSITIVE_INFINITY]) {
      const result = checkPrice(price, 'usd');
      assert.equal(result.ok, false, String(price));
      assert.equal(!result.ok && result.field, 'price');
    }
  });

  test('an unknown currency is refused on the currency field', () => {
    for (const currency of ['xyz', '', 'us', 'usdd', 'toString', ' usd']) {
      const result = checkPrice(1000, currency);
      assert.equal(result.ok, false, currency);
      assert.equal(!result.ok && result.field, 'currency');
      assert.match(!result.ok ? result.message : '', /docs\.stripe\.com\/currencies/);
    }
    assert.equal(checkPrice(0, 'xyz').ok, false);
  });

  test('the minimum: at least 50 cents in USD, refused just below with the amount spelled out', () => {
    assert.deepEqual(checkPrice(50, 'USD'), { ok: true, currency: 'usd' });
    assert.deepEqual(checkPrice(49, 'usd'), {
      ok: false,
      field: 'price',
      message: 'price must be at least 0.50 USD (50 in minor units) for usd',
    });
    assert.deepEqual(checkPrice(1, 'usd'), {
      ok: false,
      field: 'price',
      message: 'price must be at least 0.50 USD (50 in minor units) for usd',
    });
  });

  test('minimums of zero-decimal and large-unit currencies', () => {
    assert.equal(checkPrice(50, 'jpy').ok, true);
    assert.deepEqual(checkPrice(49, 'jpy'), { ok: false, field: 'price', message: 'price must be at least 50 JPY (50 in minor units) for jpy' });
    assert.equal(checkPrice(17500, 'huf').ok, true);
    assert.deepEqual(checkPrice(17499, 'huf'), {
      ok: false,
      field: 'price',
      message: 'price must be at least 175.00 HUF (17500 in minor units) for huf',
    });
    assert.equal(checkPrice(29, 'gbp').ok, false);
    assert.equal(checkPrice(30, 'gbp').ok, true);
  });

  test('a currency without a documented minimum takes any positive amount', () => {
    assert.equal(checkPrice(1, 'idr').ok, true);
    assert.equal(checkPrice(1, 'vnd').ok, true);
  });

  test('the maximum: eight digits in minor units', () => {
    assert.equal(checkPrice(MAX_AMOUNT, 'usd').ok, true);
    assert.deepEqual(checkPrice(MAX_AMOUNT + 1, 'usd'), {
      ok: false,
      field: 'price',
      message: 'price must be at most 999999.99 USD (99999999 in minor units) for usd',
    });
    assert.equal(checkPrice(MAX_AMOUNT + 1, 'jpy').ok, false);
    assert.equal(checkPrice(MAX_AMOUNT - 9, 'kwd').ok, true);
  });

  test('three-decimal currencies: the minor-unit amount must end in 0', () => {
    assert.deepEqual(checkPrice(12340, 'kwd'), { ok: true, currency: 'kwd' });
    assert.deepEqual(checkPrice(10, 'BHD'), { ok: true, currency: 'bhd' });
    for (const [price, currency] of [[12345, 'kwd'], [5, 'omr'], [1001, 'jod'], [99, 'tnd'], [11, 'bhd']] as const) {
      const result = checkPrice(price, currency);
      assert.equal(result.ok, false, `${price} ${currency}`);
      assert.equal(!result.ok && result.field, 'price');
      assert.match(!result.ok ? result.message : '', /end in 0/);
    }
    // Two-decimal currencies have no such rule.
    assert.equal(checkPrice(12345, 'usd').ok, true);
  });
});

describe('formatMoney', () => {
  test('exact strings in English', () => {
    assert.equal(formatMoney(5000, 'eur'), '€50.00');
    assert.equal(formatMoney(5000, 'jpy'), '¥5,000');
    assert.equal(formatMoney(12340, 'kwd'), 'KWD\u00a012.340');
    assert.equal(formatMoney(100, 'BHD'), 'BHD\u00a00.100');
    assert.equal(formatMoney(123456, 'usd'), '$1,234.56');
    assert.equal(formatMoney(5, 'usd'), '$0.05');
    assert.equal(formatMoney(0, 'usd'), '$0.00');
    assert.equal(formatMoney(MAX_AMOUNT, 'usd'), '$999,999.99');
    assert.equal(formatMoney(-5000, 'usd'), '-$50.00');
    // Stripe's two digits for ISK, where Intl alone would show none.
    assert.equal(formatMoney(500, 'isk'), 'ISK\u00a05.00');
  });

  test('large amounts print every digit exactly', () => {
    assert.equal(formatMoney(9_007_199_254_740_991, 'usd'), '$90,071,992,547,409.91');
    assert.equal(formatMoney(9_007_199_254_740_991, 'kwd'), 'KWD\u00a09,007,199,254,740.991');
  });

  test('another locale', () => {
    assert.equal(formatMoney(5000, 'eur', 'de'), '50,00\u00a0€');
    assert.equal(formatMoney(5000, 'jpy', 'ja'), '￥5,000');
  });

  test('refuses an amount that is not whole minor units', () => {
    assert.throws(() => formatMoney(1.5, 'usd'), RangeError);
    assert.throws(() => formatMoney(Number.NaN, 'usd'), RangeError);
  });
});
