// Where a ranged GET of s3://bucket/key goes: virtual-hosted (https://<bucket>.s3.<region>.amazonaws.com/<key>,
// or <bucket>.<endpoint host> for a custom endpoint) or path-style (https://s3.<region>.amazonaws.com/<bucket>/<key>).
// Pure: no I/O. The same function serves AWS and custom endpoints, so the benchmarked path is the one AWS users get.
// AWS rules (S3 User Guide, "Virtual hosting of buckets"): a bucket name that is not a DNS label set
// without dots (dots break the TLS wildcard certificate) is addressed path-style.

export type S3AddressingStyle = 'virtual-hosted' | 'path';

export interface S3Target {
  /** Scheme and authority the connection goes to (https://host[:port]). */
  readonly origin: string;
  /** The signed Host header. */
  readonly host: string;
  /** The canonical URI path (already encoded). */
  readonly path: string;
  readonly style: S3AddressingStyle;
}

/** RFC 3986 encoding of one path segment, as S3 canonical URIs need (no double encoding). */
export function encodeSegment(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Keys made only of unreserved characters and '/' encode to themselves (most warehouse paths). */
const PLAIN_KEY = /^[A-Za-z0-9\-._~/]*$/;

/** The S3 canonical URI path of an object key: each '/'-separated segment RFC 3986-encoded. */
export function encodeKey(key: string): string {
  return PLAIN_KEY.test(key) ? key : key.split('/').map(encodeSegment).join('/');
}

/** A bucket that can be a DNS label of a virtual host: 3–63 of [a-z0-9-], no dots, no leading/trailing '-'. */
const VIRTUAL_HOST_BUCKET = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

/** The AWS S3 regional endpoint of `region` (the China partition's domain for cn-*). */
export function awsS3Endpoint(region: string): string {
  return `https://s3.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
}

export class S3Addressing {
  readonly base: URL;
  /** True when no endpoint is configured: requests go to AWS S3 itself. */
  readonly aws: boolean;

  constructor(
    readonly region: string,
    endpoint: string | undefined,
    private readonly forcePathStyle: boolean,
  ) {
    this.aws = endpoint === undefined;
    this.base = new URL(endpoint ?? awsS3Endpoint(region));
  }

  /** The addressing style `bucket` gets: path-style when forced or when the bucket cannot be a host label. */
  styleFor(bucket: string): S3AddressingStyle {
    return this.forcePathStyle || !VIRTUAL_HOST_BUCKET.test(bucket) ? 'path' : 'virtual-hosted';
  }

  /** The configured style (what doctor reports): path-style only when forced. */
  get style(): S3AddressingStyle {
    return this.forcePathStyle ? 'path' : 'virtual-hosted';
  }

  target(bucket: string, key: string): S3Target {
    const style = this.styleFor(bucket);
    if (style === 'path') {
      return { origin: this.base.origin, host: this.base.host, path: `/${encodeSegment(bucket)}/${encodeKey(key)}`, style };
    }
    const host = `${bucket}.${this.base.host}`;
    return { origin: `${this.base.protocol}//${host}`, host, path: `/${encodeKey(key)}`, style };
  }
}
