// A clone of the repository is self-contained: no tracked text file points at notes that live outside
// it (the team's style, architecture and reference notes by their bare file names, or the folder
// beside the repo that held them), and none cites a tracker number in place of saying what it means.
// What the code relies on from those notes lives in docs/design/, docs/architecture.md and
// CONTRIBUTING.md, and citations name those files. Binary files and package-lock.json are skipped.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');

// Built from parts so this file does not match its own patterns.
const NOTE_NAMES = ['STYLE', 'ARCHITECTURE', 'iceberg', 'hms', 'temporal', 'stack'];
const outsideNote = new RegExp(`(?<![\\w-])(?:${NOTE_NAMES.join('|')})\\.md\\b`);
const siblingFolder = new RegExp(['\\.\\.', 'shared'].join('/'));
const trackerNumber = new RegExp(['\\b[Ii]ssues?', '#?\\d+'].join(' '));

interface Finding {
  readonly where: string;
  readonly what: string;
}

function trackedTextFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return out
    .split('\0')
    .filter((f) => f !== '' && path.basename(f) !== 'package-lock.json')
    .filter((f) => existsSync(path.join(root, f)));
}

function isBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

/** Every line of `text` that matches one of the patterns, as file:line and the offending text. */
export function findingsIn(file: string, text: string): Finding[] {
  const found: Finding[] = [];
  text.split('\n').forEach((line, i) => {
    for (const [label, re] of [
      ['note outside the repo', outsideNote],
      ['folder beside the repo', siblingFolder],
      ['tracker number', trackerNumber],
    ] as const) {
      const m = re.exec(line);
      if (m) found.push({ where: `${file}:${i + 1}`, what: `${label}: ${m[0]}` });
    }
  });
  return found;
}

describe('the repository is self-contained', () => {
  it('the patterns catch what they are for, and leave the in-repo names alone', () => {
    const bad = [
      ['see ', NOTE_NAMES[1], '.md'].join(''),
      ['(', NOTE_NAMES[2], '.md §6)'].join(''),
      ['reference/', NOTE_NAMES[3], '.md §5'].join(''),
      ['../', 'shared/reference'].join(''),
      ['(iss', 'ue 22, item 4)'].join(''),
      ['Iss', 'ues 21 + 22'].join(''),
      ['iss', 'ue #12'].join(''),
    ];
    for (const line of bad) expect(findingsIn('x.ts', line)).not.toEqual([]);
    const good = [
      'docs/design/iceberg-spec.md §6',
      'docs/design/hive-metastore.md §5',
      'docs/design/temporal-rules.md §0',
      'docs/design/stack-components.md §1',
      'docs/architecture.md "Habits" 5',
      'CONTRIBUTING.md',
      'trinodb/trino#18103',
    ];
    for (const line of good) expect(findingsIn('x.ts', line)).toEqual([]);
  });

  it('no tracked text file points outside the repo or cites a tracker number', () => {
    const files = trackedTextFiles();
    expect(files.length).toBeGreaterThan(100);
    const findings: Finding[] = [];
    for (const file of files) {
      const bytes = readFileSync(path.join(root, file));
      if (isBinary(bytes)) continue;
      findings.push(...findingsIn(file, bytes.toString('utf8')));
    }
    expect(findings.map((f) => `${f.where} ${f.what}`)).toEqual([]);
  });
});
