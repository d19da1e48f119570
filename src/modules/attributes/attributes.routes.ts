import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/client.js';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { runAnnouncedMutation } from '../../http/mutation.js';
import { TakeSkipQuery } from '../../http/pagination.js';
import { IdempotentHeaders } from '../webhooks/webhooks.schemas.js';
import { presentAssignedOption, presentAssignment, presentAttribute, presentOption } from './attributes.presenter.js';
import {
  AssignBody,
  AssignedOptionOutput,
  AssignedOptionsQuery,
  AssignmentOutput,
  AttributeOutput,
  AttributeParams,
  AttributeSlugParams,
  CreateAttributeBody,
  CreateOptionBody,
  MemberOptionParams,
  MemberParams,
  OptionOutput,
  OptionParams,
  OrgAttributesParams,
  UpdateAttributeBody,
  UpdateOptionBody,
} from './attributes.schemas.js';
import * as attributes from './attributes.service.js';

// As the reference: members read, admins (or a custom role's permission) write. svc has no OAuth scope of
// attributes; they describe members, so the membership scopes cover them (README, differences).
const read = access.tenant('ORG_MEMBERSHIP_READ', { role: 'ORG_MEMBER', permissions: ['organization.attributes.read'] });
const write = (permission: string) => access.tenant('ORG_MEMBERSHIP_WRITE', { role: 'ORG_ADMIN', permissions: [permission] });
const WRITE_NOTE = 'Send Idempotency-Key to make retries safe.';

/** `/v2/organizations/{orgId}/attributes...`: the reference's OrganizationsAttributes and OrganizationsAttributesOptions controllers. */
export function registerAttributeRoutes(app: App, ctx: AppContext): void {
  const db = () => ctx.database.db;
  // Attributes decide who hosts segmented round robin and who is routed: every write drops the team profiles of every process.
  const written = <T>(request: FastifyRequest, reply: FastifyReply, status: number, work: (tx: Db) => Promise<T>) => runAnnouncedMutation(ctx, request, reply, status, { kind: 'tenancy' }, work);
  const tags = ['Orgs / Attributes'];
  const optionTags = ['Orgs / Attributes / Options'];
  const base = '/v2/organizations/:orgId/attributes';

  app.get(base, {
    config: { access: read },
    schema: { tags, summary: 'Get all attributes', description: "The organization's attributes, oldest first.", params: OrgAttributesParams, querystring: TakeSkipQuery(), response: { 200: Envelope(Type.Array(AttributeOutput)) } },
    handler: async (request) => ok((await attributes.listAttributes(db(), request.params.orgId, { skip: request.query.skip ?? 0, take: request.query.take ?? 250 })).map(presentAttribute)),
  });

  app.post(base, {
    config: { access: write('organization.attributes.create') },
    schema: {
      tags,
      summary: 'Create an attribute',
      description: `A SINGLE_SELECT or MULTI_SELECT attribute is made with its options. ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: OrgAttributesParams,
      body: CreateAttributeBody,
      response: { 201: Envelope(AttributeOutput) },
    },
    handler: async (request, reply) =>
      written(request, reply, 201, async (tx) => presentAttribute(await attributes.createAttribute(tx, request.params.orgId, request.body))),
  });

  app.get(`${base}/:attributeId`, {
    config: { access: read },
    schema: { tags, summary: 'Get an attribute', params: AttributeParams, response: { 200: Envelope(AttributeOutput) } },
    handler: async (request) => ok(presentAttribute(await attributes.getAttribute(db(), request.params.orgId, request.params.attributeId))),
  });

  app.patch(`${base}/:attributeId`, {
    config: { access: write('organization.attributes.update') },
    schema: { tags, summary: 'Update an attribute', description: WRITE_NOTE, headers: IdempotentHeaders, params: AttributeParams, body: UpdateAttributeBody, response: { 200: Envelope(AttributeOutput) } },
    handler: async (request, reply) =>
      written(request, reply, 200, async (tx) => presentAttribute(await attributes.updateAttribute(tx, request.params.orgId, request.params.attributeId, request.body))),
  });

  app.delete(`${base}/:attributeId`, {
    config: { access: write('organization.attributes.delete') },
    schema: { tags, summary: 'Delete an attribute', description: 'With its options and every member\'s value of it.', params: AttributeParams, response: { 200: Envelope(AttributeOutput) } },
    handler: async (request, reply) =>
      written(request, reply, 200, async (tx) => presentAttribute(await attributes.deleteAttribute(tx, request.params.orgId, request.params.attributeId))),
  });

  app.post(`${base}/:attributeId/options`, {
    config: { access: write('organization.attributes.create') },
    schema: { tags: optionTags, summary: 'Create an attribute option', description: WRITE_NOTE, headers: IdempotentHeaders, params: AttributeParams, body: CreateOptionBody, response: { 201: Envelope(OptionOutput) } },
    handler: async (request, reply) =>
      written(request, reply, 201, async (tx) => presentOption(await attributes.createOption(tx, request.params.orgId, request.params.attributeId, request.body))),
  });

  app.get(`${base}/:attributeId/options`, {
    config: { access: read },
    schema: { tags: optionTags, summary: 'Get all attribute options', params: AttributeParams, response: { 200: Envelope(Type.Array(OptionOutput)) } },
    handler: async (request) => ok((await attributes.listOptions(db(), request.params.orgId, request.params.attributeId)).map(presentOption)),
  });

  app.patch(`${base}/:attributeId/options/:optionId`, {
    config: { access: write('organization.attributes.update') },
    schema: { tags: optionTags, summary: 'Update an attribute option', description: WRITE_NOTE, headers: IdempotentHeaders, params: OptionParams, body: UpdateOptionBody, response: { 200: Envelope(OptionOutput) } },
    handler: async (request, reply) =>
      written(request, reply, 200, async (tx) => presentOption(await attributes.updateOption(tx, request.params.orgId, request.params.attributeId, request.params.optionId, request.body))),
  });

  app.delete(`${base}/:attributeId/options/:optionId`, {
    config: { access: write('organization.attributes.delete') },
    schema: { tags: optionTags, summary: 'Delete an attribute option', description: 'Members holding it lose it.', params: OptionParams, response: { 200: Envelope(OptionOutput) } },
    handler: async (request, reply) =>
      written(request, reply, 200, async (tx) => presentOption(await attributes.deleteOption(tx, request.params.orgId, request.params.attributeId, request.params.optionId))),
  });

  const assignedDescription = 'Options held by at least one member, with `assignedUserIds`. `assignedOptionIds`: only options held by a member who also holds one of those (404 when none is); `teamIds`: only options held by a member of one of those teams of the organization.';
  app.get(`${base}/:attributeId/options/assigned`, {
    config: { access: read },
    schema: { tags: optionTags, summary: 'Get all assigned attribute options by attribute ID', description: assignedDescription, params: AttributeParams, querystring: AssignedOptionsQuery, response: { 200: Envelope(Type.Array(AssignedOptionOutput)) } },
    handler: async (request) => ok((await attributes.assignedOptions(db(), request.params.orgId, { id: request.params.attributeId }, request.query)).map(presentAssignedOption)),
  });

  app.get(`${base}/slugs/:attributeSlug/options/assigned`, {
    config: { access: read },
    schema: { tags: optionTags, summary: 'Get all assigned attribute options by attribute slug', description: assignedDescription, params: AttributeSlugParams, querystring: AssignedOptionsQuery, response: { 200: Envelope(Type.Array(AssignedOptionOutput)) } },
    handler: async (request) => ok((await attributes.assignedOptions(db(), request.params.orgId, { slug: request.params.attributeSlug }, request.query)).map(presentAssignedOption)),
  });

  app.post(`${base}/options/:userId`, {
    config: { access: write('organization.attributes.update') },
    schema: {
      tags: optionTags,
      summary: 'Assign an attribute to a user',
      description: `To an accepted member: an option of the attribute, or (TEXT, NUMBER) a value. A SINGLE_SELECT, TEXT or NUMBER attribute holds one value per member: the new one replaces the old. ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: MemberParams,
      body: AssignBody,
      response: { 201: Envelope(AssignmentOutput) },
    },
    handler: async (request, reply) =>
      written(request, reply, 201, async (tx) => presentAssignment(await attributes.assignToMember(tx, request.params.orgId, request.params.userId, request.body))),
  });

  app.get(`${base}/options/:userId`, {
    config: { access: read },
    schema: { tags: optionTags, summary: 'Get all attribute options for a user', params: MemberParams, response: { 200: Envelope(Type.Array(OptionOutput)) } },
    handler: async (request) => ok((await attributes.optionsOfMember(db(), request.params.orgId, request.params.userId)).map(presentOption)),
  });

  app.delete(`${base}/options/:userId/:attributeOptionId`, {
    config: { access: write('organization.attributes.update') },
    schema: { tags: optionTags, summary: 'Unassign an attribute from a user', params: MemberOptionParams, response: { 200: Envelope(AssignmentOutput) } },
    handler: async (request, reply) =>
      written(request, reply, 200, async (tx) => presentAssignment(await attributes.unassignFromMember(tx, request.params.orgId, request.params.userId, request.params.attributeOptionId))),
  });
}
