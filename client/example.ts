import createClient from 'openapi-fetch';
import type { paths } from './openapi.js';

const svc = createClient<paths>({
  baseUrl: process.env.SVC_URL ?? 'http://localhost:5555',
  headers: { Authorization: `Bearer ${process.env.SVC_API_KEY}` },
});

const me = await svc.GET('/v2/me');
if (me.error) throw new Error(me.error.error.message);
console.log(`Hello ${me.data.data.name}`);

const { data, error } = await svc.POST('/v2/schedules', {
  params: { header: { 'svc-api-version': '2024-06-11' } },
  body: { name: 'Working hours', timeZone: 'Europe/Rome', isDefault: true },
});
if (error) throw new Error(`${error.error.code}: ${error.error.message}`);
console.log(`Schedule ${data.data.id} in ${data.data.timeZone}`);
