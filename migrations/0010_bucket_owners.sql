-- Buckets belong to accounts (src/buckets/owners.ts, README "Buckets and accounts").
--
-- bucket_owners: one row per local or bound bucket that has an owner.
--   bucket      the bucket name of s3:// descriptors and of the S3 endpoint (AWS naming rules)
--   account_id  the owning account: the first account that created the bucket (S3 CreateBucket) or used it in a
--               descriptor, a BYOC/Zarr collection, an evalscriptReference or on the S3 endpoint (claimed with
--               INSERT ... ON CONFLICT DO NOTHING, then read back, so two first users cannot both win)
--   policy      the bucket policy the owner put (S3 PutBucketPolicy, JSON text as given; NULL = none): its Allow
--               statements name the other accounts granted the bucket (src/buckets/policy.ts)
--   created     ISO 8601 UTC (ListBuckets' CreationDate)
CREATE TABLE bucket_owners (
  bucket TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  policy TEXT,
  created TEXT NOT NULL
);
CREATE INDEX bucket_owners_account ON bucket_owners (account_id, bucket);

-- s3_keys: the access keys of the S3 endpoint, per account (src/buckets/keys.ts). The secret is stored itself,
-- not a hash: AWS Signature Version 4 is an HMAC keyed with the secret, so verifying a signature needs it.
CREATE TABLE s3_keys (
  access_key_id TEXT PRIMARY KEY,
  secret TEXT NOT NULL,
  account_id TEXT NOT NULL,
  created TEXT NOT NULL
);
CREATE INDEX s3_keys_account ON s3_keys (account_id, created);

-- The sample buckets `npm start` seeds (scripts/seed-byoc.ts, scripts/seed-zarr.ts) belong to the demo account.
INSERT INTO bucket_owners (bucket, account_id, policy, created) VALUES
  ('eo-edge-byoc-sample', '00000000-0000-4000-8000-000000000001', NULL, '2026-01-01T00:00:00.000Z'),
  ('eo-edge-samples', '00000000-0000-4000-8000-000000000001', NULL, '2026-01-01T00:00:00.000Z');

-- A state made before this migration: the buckets of existing BYOC and Zarr collections go to the account of the
-- earliest collection on each (INSERT OR IGNORE keeps the first row per bucket, rows taken oldest first).
INSERT OR IGNORE INTO bucket_owners (bucket, account_id, policy, created)
  SELECT bucket, account, NULL, created FROM (
    SELECT json_extract(config, '$.s3Bucket') AS bucket, owner AS account, created, id FROM data_collections
      WHERE kind = 'byoc' AND owner IS NOT NULL AND json_extract(config, '$.s3Bucket') IS NOT NULL
    UNION ALL
    SELECT s3_bucket, account, created, id FROM zarr_collections
  ) ORDER BY created, id;
