/**
 * The claims of a verified access token, as the router hands them to routes (`AuthedRequest`). Declared here, below
 * src/auth which issues and verifies tokens (src/auth/tokens.ts), so that http imports nothing of auth.
 */

/** Claims EO Edge puts in (and reads from) an access token. */
export interface TokenClaims {
  sub: string;
  /** The OAuth client the token was issued to (absent only in tokens the token endpoint never issues). */
  azp?: string;
  account: string;
  aid: string;
  /** Keycloak's claim: web origins a single-page-app client's token may be used from (`["*"]`: all). */
  "allowed-origins"?: string[];
  iss: string;
  exp: number;
  iat: number;
}
