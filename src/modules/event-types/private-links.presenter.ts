import type { Static } from 'typebox';
import type { PrivateLinkOutput } from './private-links.schemas.js';
import type { PrivateLinkView } from './private-links.service.js';

/** Where a link's booking page is, as the reference prints it: <APP_URL>/d/<linkId>/<slug>. */
function bookingUrl(view: PrivateLinkView, appUrl: string): string {
  return `${appUrl.replace(/\/+$/, '')}/d/${encodeURIComponent(view.linkId)}/${encodeURIComponent(view.slug)}`;
}

/** A time-based link shows when it expires; a usage-based one its budget and the uses made. */
export function presentPrivateLink(view: PrivateLinkView, appUrl: string): Static<typeof PrivateLinkOutput> {
  const base = { linkId: view.linkId, eventTypeId: view.eventTypeId, isExpired: view.isExpired, bookingUrl: bookingUrl(view, appUrl) };
  if (view.expiresAt) return { ...base, expiresAt: view.expiresAt.toISOString() };
  return { ...base, maxUsageCount: view.maxUsageCount ?? 0, usageCount: view.usageCount };
}

/** The reference's delete answer. */
export function presentDeletedPrivateLink(linkId: string) {
  return { linkId, message: 'Private link deleted successfully' };
}
