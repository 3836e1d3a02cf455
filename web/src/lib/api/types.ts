/** The API's wire types, generated from the server's OpenAPI document (`just openapi`: the server
 *  prints it, openapi-typescript turns it into schema.d.ts). A field renamed on the server fails the
 *  web's type check here. */
import type { components } from '@/lib/api/schema';

export type Schemas = components['schemas'];
export type TokenBody = Schemas['TokenBody'];
export type ReviewStatusBody = Schemas['ReviewStatusBody'];
export type ReviewState = Schemas['ReviewState'];
export type RouteRuleBody = Schemas['RouteRule'];
export type MyInfo = Schemas['MyInfo'];
export type Uploaded = Schemas['Uploaded'];
export type AvatarBody = Schemas['AvatarBody'];
export type DeleteAccountBody = Schemas['DeleteAccountBody'];
export type DataExport = Schemas['DataExport'];
export type DataExportRequested = Schemas['DataExportRequested'];
export type ProfileCreated = Schemas['ProfileCreated'];
export type UserProfileCreateBody = Schemas['UserProfileCreate'];
export type EmailCodeRequest = Schemas['EmailCodeRequest'];
export type EmailCodeSent = Schemas['EmailCodeSent'];
export type EmailCodeConfirm = Schemas['EmailCodeConfirm'];
export type EmailCodeConfirmed = Schemas['EmailCodeConfirmed'];
export type LoginBody = Schemas['LoginBody'];
export type PublicConfigBody = Schemas['PublicConfig'];
export type LogLine = Schemas['LogLine'];
