/**
 * svc's mark, kept in code rather than as an .svg file so that it is there at run time from src
 * (tsx) and from dist (tsc copies no assets). Shown on a dark top bar, hence the white word.
 */
const MARK = `<rect x="2" y="4" width="32" height="32" rx="7" fill="#14b8a6"/><rect x="2" y="4" width="32" height="9" rx="4" fill="#0f766e"/><rect x="2" y="9" width="32" height="4" fill="#0f766e"/><path d="M11 24.5l4.5 4.5 9.5-10" fill="none" stroke="#ffffff" stroke-width="3.5" stroke-linecap="round" stroke-linejoin="round"/>`;

/** The top-bar logo: the mark and the name. */
export const SVC_LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="108" height="40" viewBox="0 0 108 40" role="img" aria-label="svc"><title>svc</title>${MARK}<text x="44" y="29" font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" font-size="26" font-weight="700" fill="#ffffff">svc</text></svg>`;

/** The favicon: the mark alone. */
export const SVC_ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="36" height="40" viewBox="0 0 36 40" role="img" aria-label="svc"><title>svc</title>${MARK}</svg>`;
