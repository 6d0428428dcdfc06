import { Type } from "typebox";

export const OidcStartQuery = Type.Object({
  returnTo: Type.Optional(
    Type.String({
      maxLength: 2048,
      description: "The path of this server to return to once signed in (a full URL or another site's is ignored: /projects)",
      examples: ["/projects/mnist"],
    }),
  ),
});

/** What the provider sends back (OAuth 2.0's authorization response, with RFC 9207's iss); the route reads the query string as sent. */
export const OidcCallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.Optional(Type.String({ maxLength: 512 })),
  iss: Type.Optional(Type.String({ maxLength: 2048 })),
  error: Type.Optional(Type.String({ maxLength: 256 })),
  error_description: Type.Optional(Type.String({ maxLength: 4096 })),
});

export const SsoErrorResponse = Type.Object(
  {
    error: Type.String(),
    // Optional: a request refused before the handler (validation) has the standard body alone.
    code: Type.Optional(
      Type.String({
        description:
          "sso_state, sso_denied, sso_code, sso_token, sso_token_expired, sso_email_missing, sso_email_unverified, sso_not_member, sso_unavailable or sso_off",
      }),
    ),
  },
  { description: "Why a single sign-on was refused. A browser (Accept: text/html) is sent to /signin?error=<code> instead." },
);

export const AuthConfigResponse = Type.Object({
  password: Type.Boolean({ description: "Sign-in with email and password (POST /api/auth/sign-in)" }),
  oidc: Type.Boolean({ description: "Single sign-on with the OpenID Connect provider (GET /api/auth/oidc/start)" }),
  apiKey: Type.Boolean({ description: "The UI's sign-in with an API key" }),
});
