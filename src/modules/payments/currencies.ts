/**
 * The currencies Stripe charges cards in and the rules it puts on amounts, as docs.stripe.com/currencies
 * documents them. Amounts are integers in the currency's minor unit, as Stripe's API takes them.
 */

/** Stripe's presentment currencies for card charges, in the lowercase ISO 4217 spelling its API requires. */
export const STRIPE_CURRENCIES: ReadonlySet<string> = new Set([
  'usd', 'aed', 'afn', 'all', 'amd', 'ang', 'aoa', 'ars', 'aud', 'awg', 'azn', 'bam', 'bbd', 'bdt', 'bgn',
  'bhd', 'bif', 'bmd', 'bnd', 'bob', 'brl', 'bsd', 'bwp', 'byn', 'bzd', 'cad', 'cdf', 'chf', 'clp', 'cny',
  'cop', 'crc', 'cve', 'czk', 'djf', 'dkk', 'dop', 'dzd', 'egp', 'etb', 'eur', 'fjd', 'fkp', 'gbp', 'gel',
  'gip', 'gmd', 'gnf', 'gtq', 'gyd', 'hkd', 'hnl', 'htg', 'huf', 'idr', 'ils', 'inr', 'isk', 'jmd', 'jod',
  'jpy', 'kes', 'kgs', 'khr', 'kmf', 'krw', 'kwd', 'kyd', 'kzt', 'lak', 'lbp', 'lkr', 'lrd', 'lsl', 'mad',
  'mdl', 'mga', 'mkd', 'mmk', 'mnt', 'mop', 'mur', 'mvr', 'mwk', 'mxn', 'myr', 'mzn', 'nad', 'ngn', 'nio',
  'nok', 'npr', 'nzd', 'omr', 'pab', 'pen', 'pgk', 'php', 'pkr', 'pln', 'pyg', 'qar', 'ron', 'rsd', 'rub',
  'rwf', 'sar', 'sbd', 'scr', 'sek', 'sgd', 'shp', 'sle', 'sos', 'srd', 'std', 'szl', 'thb', 'tjs', 'tnd',
  'top', 'try', 'ttd', 'twd', 'tzs', 'uah', 'ugx', 'uyu', 'uzs', 'vnd', 'vuv', 'wst', 'xaf', 'xcd', 'xcg',
  'xof', 'xpf', 'yer', 'zar', 'zmw',
]);

/** Currencies whose amounts Stripe takes in whole units (500 jpy is ¥500). */
export const ZERO_DECIMAL: ReadonlySet<string> = new Set([
  'bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf',
]);

/**
 * Currencies with three decimals. Stripe's card partners settle them in tens of the minor unit, so its
 * API refuses an amount whose last digit is not 0 (5.124 KWD must be sent as 5120 or 5130).
 */
export const THREE_DECIMAL: ReadonlySet<string> = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

/**
 * Stripe's minimum charge per currency, in minor units. Stripe states these per settlement currency; a
 * charge in another currency must convert to the settlement currency's minimum, which only Stripe can
 * check at charge time, so currencies not listed here have no minimum before then.
 */
export const MINIMUM_CHARGE: ReadonlyMap<string, number> = new Map([
  ['usd', 50], ['aed', 200], ['aud', 50], ['bgn', 100], ['brl', 50], ['cad', 50], ['chf', 50], ['czk', 1500],
  ['dkk', 250], ['eur', 50], ['gbp', 30], ['hkd', 400], ['huf', 17500], ['inr', 50], ['jpy', 50], ['mxn', 1000],
  ['myr', 200], ['nok', 300], ['nzd', 50], ['pln', 200], ['ron', 200], ['sek', 300], ['sgd', 50], ['thb', 1000],
]);

/** Stripe's largest amount: eight digits in minor units ($999,999.99). */
export const MAX_AMOUNT = 99_999_999;

/**
 * Digits after the decimal point in Stripe's minor unit: 2 unless Stripe lists the currency as zero- or
 * three-decimal (ISK and HUF stay 2 here, as Stripe's API takes them, though ISO gives them 0).
 */
export function minorUnitDigits(currency: string): 0 | 2 | 3 {
  const code = currency.toLowerCase();
  if (ZERO_DECIMAL.has(code)) return 0;
  if (THREE_DECIMAL.has(code)) return 3;
  return 2;
}

/** A minor-unit amount in major units with a fixed point, e.g. 50 usd -> `0.50`, 17500 huf -> `175.00`. */
function majorUnits(amount: number, digits: number): string {
  return (amount / 10 ** digits).toFixed(digits);
}

export type PriceCheck = { ok: true; currency: string } | { ok: false; field: 'price' | 'currency'; message: string };

/** Whether Stripe would take `price` (minor units) in `currency`; 0 is a free event in any supported currency. */
export function checkPrice(price: number, currency: string): PriceCheck {
  if (!Number.isInteger(price) || price < 0) {
    return { ok: false, field: 'price', message: 'price must be a whole number of minor units (cents), 0 or more' };
  }
  const code = currency.toLowerCase();
  if (!STRIPE_CURRENCIES.has(code)) {
    return {
      ok: false,
      field: 'currency',
      message: `unknown currency '${currency}': use a lowercase ISO 4217 code Stripe supports (docs.stripe.com/currencies)`,
    };
  }
  const digits = minorUnitDigits(code);
  const unit = code.toUpperCase();
  if (price > MAX_AMOUNT) {
    return {
      ok: false,
      field: 'price',
      message: `price must be at most ${majorUnits(MAX_AMOUNT, digits)} ${unit} (${MAX_AMOUNT} in minor units) for ${code}`,
    };
  }
  if (price === 0) return { ok: true, currency: code };
  const minimum = MINIMUM_CHARGE.get(code);
  if (minimum !== undefined && price < minimum) {
    return {
      ok: false,
      field: 'price',
      message: `price must be at least ${majorUnits(minimum, digits)} ${unit} (${minimum} in minor units) for ${code}`,
    };
  }
  if (digits === 3 && price % 10 !== 0) {
    return {
      ok: false,
      field: 'price',
      message: `price in ${code} must end in 0 in minor units (Stripe takes three-decimal currencies in tens): ${price}`,
    };
  }
  return { ok: true, currency: code };
}

/** `amount` (minor units of `currency`) as money in `locale`, with Stripe's minor-unit digits. */
export function formatMoney(amount: number, currency: string, locale = 'en'): string {
  if (!Number.isSafeInteger(amount)) throw new RangeError(`amount must be a whole number of minor units: ${amount}`);
  const digits = minorUnitDigits(currency);
  // Intl reads a decimal string exactly; amount / 10 ** digits would be off by a rounding for large amounts.
  const magnitude = String(Math.abs(amount)).padStart(digits + 1, '0');
  const whole = magnitude.slice(0, magnitude.length - digits);
  const decimal = `${amount < 0 ? '-' : ''}${whole}${digits > 0 ? `.${magnitude.slice(-digits)}` : ''}`;
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: currency.toUpperCase(),
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(decimal as Intl.StringNumericLiteral);
}
