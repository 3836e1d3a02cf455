/** The API's wire types, generated from the server's OpenAPI document (`just openapi`: the server
 *  prints it, openapi-typescript turns it into schema.d.ts). A field renamed on the server fails the
 *  web's type check here. */
import type { components } from '@/lib/api/schema';

export type Schemas = components['schemas'];
export type TokenBody = Schemas['TokenBody'];
export type ReviewStatusBody = Schemas['ReviewStatusBody'];
export type ReviewState = Schemas['ReviewState'];
export type RouteRuleBody = Schemas['RouteRule'];
