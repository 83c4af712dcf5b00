// The lean ListObjectsV2 answer parser (adapters/storage/s3-lean.ts parseListObjectsV2): objects,
// common prefixes, continuation, entities in keys; a document that is not a listing is refused.
import { parseListObjectsV2, xmlText } from '../../../adapters/storage/s3-lean';

const doc = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>hive</Name><Prefix>db/t/</Prefix><KeyCount>3</KeyCount><MaxKeys>2</MaxKeys><Delimiter>/</Delimiter>${body}</ListBucketResult>`;

describe('parseListObjectsV2', () => {
  it('objects with size, time and etag; common prefixes; the continuation token when truncated', () => {
    const page = parseListObjectsV2(
      doc(
        '<IsTruncated>true</IsTruncated><Contents><Key>db/t/a&amp;b&lt;c&gt;&quot;q&apos;.parquet</Key><LastModified>2026-12-05T04:00:00.000Z</LastModified><ETag>&quot;9a0364b9e99bb480dd25e1f0284c8555&quot;</ETag><Size>1234</Size><StorageClass>STANDARD</StorageClass></Contents>' +
          '<Contents><Key>db/t/&#233;&#x1F4A1;.parquet</Key><LastModified>2026-12-05T04:00:01Z</LastModified><ETag>"e"</ETag><Size>0</Size></Contents>' +
          '<CommonPrefixes><Prefix>db/t/dt=1/</Prefix></CommonPrefixes><CommonPrefixes><Prefix>db/t/dt=2 x&amp;y/</Prefix></CommonPrefixes>' +
          '<NextContinuationToken>tok+/=</NextContinuationToken>',
      ),
    );
    expect(page.contents).toEqual([
      {
        key: `db/t/a&b<c>"q'.parquet`,
        size: 1234,
        lastModified: Date.parse('2026-12-05T04:00:00Z'),
        etag: '9a0364b9e99bb480dd25e1f0284c8555',
      },
      { key: 'db/t/é💡.parquet', size: 0, lastModified: Date.parse('2026-12-05T04:00:01Z'), etag: 'e' },
    ]);
    expect(page.commonPrefixes).toEqual(['db/t/dt=1/', 'db/t/dt=2 x&y/']);
    expect(page.nextToken).toBe('tok+/=');
  });

  it('not truncated: no token even if one is present; an empty listing', () => {
    expect(
      parseListObjectsV2(doc('<IsTruncated>false</IsTruncated><NextContinuationToken>x</NextContinuationToken>')).nextToken,
    ).toBeUndefined();
    expect(parseListObjectsV2(doc('<IsTruncated>false</IsTruncated>'))).toEqual({ contents: [], commonPrefixes: [], nextToken: undefined });
  });

  it('refuses a document that is not a ListBucketResult, and a Contents entry without a Key', () => {
    expect(() => parseListObjectsV2('<Error><Code>AccessDenied</Code></Error>')).toThrow(/not a ListBucketResult/);
    expect(() => parseListObjectsV2(doc('<Contents><Size>1</Size></Contents>'))).toThrow(/without a Key/);
  });

  it('xmlText leaves unknown entities as they are', () => {
    expect(xmlText('a &nbsp; b &amp;amp;')).toBe('a &nbsp; b &amp;');
  });
});
