/**
 * The signature chain of signed aws-chunked uploads (x-amz-content-sha256: STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER],
 * what aws-sdk-go, minio-go and the Java SDK send over plain http). AWS docs, "Signature Calculations for the
 * Authorization Header: Transferring Payload in Multiple Chunks": chunk n's signature is the HMAC, with the request's
 * SigV4 signing key, of
 *   AWS4-HMAC-SHA256-PAYLOAD \n <X-Amz-Date> \n <scope> \n <signature n-1> \n <SHA-256 of ""> \n <SHA-256 of chunk n>
 * where signature 0 is the Authorization header's (the seed); the final 0-byte chunk is signed too. A trailer
 * ("Including Trailing Headers") is signed after it as
 *   AWS4-HMAC-SHA256-TRAILER \n <X-Amz-Date> \n <scope> \n <last chunk signature> \n <SHA-256 of "name:value\n"...>
 * The HMAC and its key derivation are aws4fetch's (the signer that checks the seed, ./auth.ts).
 */
import { AwsV4Signer } from "aws4fetch";
import { constantTimeEqual } from "../http/compare";
import { S3Error } from "./xml";

/**
 * The claims of a signed request the chain starts from (./auth.ts `SignedRequest` extends it): who, when
 * (X-Amz-Date, YYYYMMDDTHHMMSSZ), the credential scope and the seed signature.
 */
export interface SeedRequest {
  accessKeyId: string;
  datetime: string;
  date: string;
  region: string;
  service: string;
  signature: string;
  /** Set once verified: hex HMAC-SHA256 of a string with the request's signing key (chunk signatures). */
  signString?: (stringToSign: string) => Promise<string>;
}

/** An AwsV4Signer whose string to sign is given: its signature() is HMAC(signing key of the scope, text). */
class StringSigner extends AwsV4Signer {
  constructor(
    options: ConstructorParameters<typeof AwsV4Signer>[0],
    private readonly text: string,
  ) {
    super(options);
  }
  override async stringToSign(): Promise<string> {
    return this.text;
  }
}

/** Hex HMAC-SHA256 of strings with the signing key of `s`'s scope (date, region, service) and `secretAccessKey`. */
export function stringSigner(secretAccessKey: string, s: SeedRequest): (text: string) => Promise<string> {
  const cache = new Map<string, ArrayBuffer>(); // the derived key, computed once per request
  const options = {
    url: "https://s3.amazonaws.com/",
    accessKeyId: s.accessKeyId,
    secretAccessKey,
    service: s.service,
    region: s.region,
    datetime: s.datetime,
    cache,
  };
  return (text) => new StringSigner(options, text).signature();
}

const hex = (bytes: ArrayBuffer): string =>
  [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
const sha256Hex = async (bytes: Uint8Array | string): Promise<string> =>
  hex(await crypto.subtle.digest("SHA-256", typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes));
const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/** Checks the signatures of one signed aws-chunked body, chunk by chunk in order, then its trailer. */
export class ChunkSignatures {
  private previous: string;
  private readonly scope: string;

  /** `s`: the verified seed request, with its signString. */
  constructor(private readonly s: SeedRequest) {
    if (!s.signString) throw new Error("ChunkSignatures needs a request verified by verifySignature");
    this.previous = s.signature;
    this.scope = `${s.date}/${s.region}/${s.service}/aws4_request`;
  }

  /** The next chunk (`data` its bytes, empty for the final one). @throws S3Error SignatureDoesNotMatch. */
  async chunk(signature: string, data: Uint8Array): Promise<void> {
    await this.check("AWS4-HMAC-SHA256-PAYLOAD", `${EMPTY_SHA256}\n${await sha256Hex(data)}`, signature, "chunk");
  }

  /** The trailer after the final chunk: its `name:value\n` lines. @throws S3Error SignatureDoesNotMatch. */
  async trailer(signature: string, canonical: string): Promise<void> {
    await this.check("AWS4-HMAC-SHA256-TRAILER", await sha256Hex(canonical), signature, "trailer");
  }

  private async check(algorithm: string, hashes: string, signature: string, what: string): Promise<void> {
    const expected = await this.s.signString!(
      `${algorithm}\n${this.s.datetime}\n${this.scope}\n${this.previous}\n${hashes}`,
    );
    if (!constantTimeEqual(expected, signature))
      throw new S3Error(
        403,
        "SignatureDoesNotMatch",
        `The ${what} signature we calculated does not match the signature you provided (chunk-signature chain of the Authorization header's seed signature).`,
      );
    this.previous = signature;
  }
}
