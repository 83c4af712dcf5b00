// The S3 signing region, resolved once at startup as the AWS SDKs do: storage.s3.region, else
// AWS_REGION, else AWS_DEFAULT_REGION (the CLI's and boto's name), else the `region` of the active
// profile (AWS_PROFILE, default `default`) in the shared config file (AWS_CONFIG_FILE, default
// ~/.aws/config), else us-east-1. Synchronous (a small file read) so stores open without awaiting.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface ResolvedRegion {
  readonly region: string;
  /** Where it came from, for doctor: config, AWS_REGION, AWS_DEFAULT_REGION, profile <name>, default. */
  readonly source: string;
}

/** The `region` of `profile` in an AWS shared config file's text ([default] or [profile name]). */
export function profileRegion(text: string, profile: string): string | undefined {
  const want = profile === 'default' ? ['default', 'profile default'] : [`profile ${profile}`];
  let inSection = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/[#;].*$/, '').trim();
    const section = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (section) {
      inSection = want.includes((section[1] ?? '').replace(/\s+/g, ' '));
      continue;
    }
    const kv = /^region\s*=\s*(\S+)$/.exec(line);
    if (inSection && kv) return kv[1];
  }
  return undefined;
}

export function resolveS3Region(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): ResolvedRegion {
  if (configured) return { region: configured, source: 'storage.s3.region' };
  if (env.AWS_REGION) return { region: env.AWS_REGION, source: 'AWS_REGION' };
  if (env.AWS_DEFAULT_REGION) return { region: env.AWS_DEFAULT_REGION, source: 'AWS_DEFAULT_REGION' };
  const profile = env.AWS_PROFILE || env.AWS_DEFAULT_PROFILE || 'default';
  const file = env.AWS_CONFIG_FILE || path.join(env.HOME || os.homedir(), '.aws', 'config');
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // No shared config file: the default below.
  }
  const fromProfile = profileRegion(text, profile);
  if (fromProfile) return { region: fromProfile, source: `profile ${profile} (${file})` };
  return { region: 'us-east-1', source: 'default (no region configured)' };
}
