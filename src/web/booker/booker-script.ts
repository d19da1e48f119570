// The booking pages' one script, served from svc's own origin (the pages' CSP allows no other): it finds
// the browser's time zone on the first visit, loads a picked day's times into the page's live region
// without a reload, and tells an embedding page what happened (window.parent.postMessage, README). The
// pages work without it.
import { createHash } from 'node:crypto';

const SOURCE = `(() => {
  const root = document.querySelector('[data-booker-tz]');
  const here = new URL(location.href);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (root && !here.searchParams.has('tz') && zone && zone !== root.dataset.bookerTz) {
    here.searchParams.set('tz', zone);
    location.replace(here.href);
    return;
  }
  const zones = document.querySelector('select[data-all-zones]');
  if (zones && Intl.supportedValuesOf) {
    const chosen = zones.value;
    const all = Intl.supportedValuesOf('timeZone');
    if (!all.includes(chosen)) all.unshift(chosen);
    zones.replaceChildren(...all.map((zone) => new Option(zone, zone, zone === chosen, zone === chosen)));
  }
  const settings = document.querySelector('form[data-settings]');
  if (settings) settings.addEventListener('change', () => settings.requestSubmit());
  document.addEventListener('click', async (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[data-day]') : null;
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const day = document.getElementById('day');
    if (!day) return;
    event.preventDefault();
    const target = new URL(link.href);
    target.searchParams.set('partial', 'day');
    day.setAttribute('aria-busy', 'true');
    try {
      const response = await fetch(target.href, { headers: { accept: 'text/html' } });
      if (!response.ok) throw new Error(String(response.status));
      day.innerHTML = await response.text();
    } catch {
      location.href = link.href;
      return;
    } finally {
      day.removeAttribute('aria-busy');
    }
    for (const other of document.querySelectorAll('a[data-day][aria-current]')) other.removeAttribute('aria-current');
    link.setAttribute('aria-current', 'date');
    history.pushState(null, '', link.href);
  });
  const happened = document.getElementById('booker-event');
  if (happened && window.parent !== window) {
    window.parent.postMessage({ originator: 'SVC', type: happened.dataset.type, data: JSON.parse(happened.dataset.booking || '{}') }, '*');
  }
})();
`;

export const BOOKER_SCRIPT = SOURCE;
/** The script's address, versioned by its content so it can be cached for a long time. */
export const BOOKER_SCRIPT_PATH = `/booker.js?v=${createHash('sha256').update(SOURCE).digest('hex').slice(0, 12)}`;
