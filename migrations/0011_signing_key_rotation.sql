-- Signing-key rotation (src/auth/keys.ts and rotate.ts): `retired` is when a key stopped signing (NULL
-- while it may sign); a retired key keeps verifying tokens, and stays in the JWKS, until the last token it signed
-- has expired. In production a rotated key's private JWK is sealed under the JWT_PRIVATE_JWK secret
-- (`v1.<iv>.<ciphertext>`, src/auth/sealed.ts), and the secret's own key, once retired, is a row with its kid and
-- an empty private_jwk.
ALTER TABLE signing_keys ADD COLUMN retired TEXT;
