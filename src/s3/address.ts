/**
 * Where the S3 endpoint is served: path-style under S3_PATH on every address of the deployment
 * (`<base>/s3/<bucket>/<key>`, for clients given an endpoint URL: aws cli, boto3, the AWS SDKs), and at the root
 * (`/<bucket>/<key>`) of the addresses listed in S3_HOSTS, for clients given a host: GDAL's `/vsis3/`
 * (AWS_S3_ENDPOINT=host:port), rasterio, s3fs. These sign the path `/<bucket>/<key>` and send it to the host's
 * root, so no path prefix can work for them: a SigV4 canonical URI is the path as sent.
 */

import { urlOf } from "../http/base";

/** The path the endpoint is served under on every address (the `--endpoint-url` is `<PUBLIC_BASE_URL>/s3`). */
export const S3_PATH = "/s3";

/** What S3 addressing reads from the environment: S3_HOSTS, `host` or `host:port` entries separated by commas. */
export interface S3AddressEnv {
  S3_HOSTS?: string;
}

/** True when `url` was sent to an S3_HOSTS entry: `host:port` matches that address, `host` that host on any port. */
function onS3Host(url: URL, hosts: string | undefined): boolean {
  if (!hosts) return false;
  const host = url.host.toLowerCase();
  const hostname = url.hostname.toLowerCase();
  return hosts.split(",").some((entry) => {
    const e = entry.trim().toLowerCase();
    return e !== "" && (e === host || e === hostname);
  });
}

/**
 * The path prefix the S3 endpoint has in `request`: "" when the request was sent to an S3_HOSTS address (the
 * endpoint is its root), S3_PATH when its path is S3_PATH or below, undefined when it is not for the S3 endpoint.
 */
export function s3Prefix(request: Request, env: S3AddressEnv): string | undefined {
  const url = urlOf(request);
  if (onS3Host(url, env.S3_HOSTS)) return "";
  return url.pathname === S3_PATH || url.pathname.startsWith(`${S3_PATH}/`) ? S3_PATH : undefined;
}
