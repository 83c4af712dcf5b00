// Where the dev seeders write, from the stack's environment: the HMS, the `hive` bucket on the
// stack's S3 and the verifier's Python (which writes the Parquet files).
export function seedTarget(env: Record<string, string | undefined>) {
  return {
    hms: env.HIM_HMS_PG_URI as string,
    bucket: 'hive',
    s3: {
      endpoint: env.HIM_S3_ENDPOINT as string,
      region: env.AWS_REGION as string,
      accessKeyId: env.AWS_ACCESS_KEY_ID as string,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY as string,
    },
    python: env.HIM_VERIFIER_PYTHON as string,
  };
}
