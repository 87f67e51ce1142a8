// What this SCIM service supports (RFC 7644 §4): the configuration, the resource types and their schemas,
// minimal and truthful: PATCH yes, bulk, sort, ETags and password changes no, filters of `eq` only.
import { SCHEMA } from "./protocol.ts";

const DOCS = "https://github.com/afk-console/afk-console#scim-provisioning";

export const serviceProviderConfig = (base: string) => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
  documentationUri: DOCS,
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: 200 },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    { type: "oauthbearertoken", name: "Bearer token", description: "A token an admin makes with role scim (API tokens)", primary: true },
  ],
  meta: { resourceType: "ServiceProviderConfig", location: `${base}/ServiceProviderConfig` },
});

const attr = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...extra,
});

export const schemas = (base: string) => [
  {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
    id: SCHEMA.user,
    name: "User",
    description: "A person of this console; userName is their email",
    attributes: [
      attr("userName", "string", { required: true, uniqueness: "server" }),
      attr("displayName", "string"),
      attr("name", "complex", { subAttributes: [attr("formatted", "string"), attr("givenName", "string"), attr("familyName", "string")] }),
      attr("emails", "complex", {
        multiValued: true,
        subAttributes: [attr("value", "string"), attr("type", "string"), attr("primary", "boolean")],
      }),
      attr("active", "boolean"),
      attr("externalId", "string", { caseExact: true }),
      attr("groups", "complex", {
        multiValued: true,
        mutability: "readOnly",
        subAttributes: [attr("value", "string"), attr("display", "string")],
      }),
    ],
    meta: { resourceType: "Schema", location: `${base}/Schemas/${SCHEMA.user}` },
  },
  {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
    id: SCHEMA.group,
    name: "Group",
    description: "An IdP group; its displayName is looked up in AFK_OIDC_GROUP_MAP",
    attributes: [
      attr("displayName", "string", { required: true, uniqueness: "server" }),
      attr("externalId", "string", { caseExact: true }),
      attr("members", "complex", {
        multiValued: true,
        subAttributes: [attr("value", "string", { mutability: "immutable" }), attr("display", "string")],
      }),
    ],
    meta: { resourceType: "Schema", location: `${base}/Schemas/${SCHEMA.group}` },
  },
];

export const resourceTypes = (base: string) => [
  {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
    id: "User",
    name: "User",
    endpoint: "/Users",
    schema: SCHEMA.user,
    meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/User` },
  },
  {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
    id: "Group",
    name: "Group",
    endpoint: "/Groups",
    schema: SCHEMA.group,
    meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/Group` },
  },
];
