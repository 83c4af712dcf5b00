// Shared installers: Go modules, Maven artifacts and Debian packages, all keyed by version in the
// cache directory so a fresh clone on the same machine reuses them. Dev tooling.
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { StackContext } from './types';
import { run, which, StackError } from './util';

/**
 * One install tool at a time in this process: installs run in parallel lanes (stack.ts), but Go
 * builds each saturate the cores, Maven 3.8 has no cross-process locking of its local repository,
 * and apt/dpkg hold a system lock. A lane that needs a busy tool waits here; pip, unzip, javac and
 * everything else overlap freely.
 */
const toolQueues = new Map<string, Promise<void>>();
export async function exclusive<T>(tool: 'go' | 'mvn' | 'apt', fn: () => Promise<T>): Promise<T> {
  const prev = toolQueues.get(tool) ?? Promise.resolve();
  let release: () => void = () => undefined;
  const mine = new Promise<void>((r) => (release = r));
  toolQueues.set(
    tool,
    prev.then(() => mine),
  );
  await prev;
  try {
    return await fn();
  } finally {
    release();
  }
}

/**
 * Go's module and build caches live in our cache too, so deleting it gives a truly cold install.
 * The compiler runs without its garbage collector below GO_BUILD_MEMORY_LIMIT (GOGC=off with a
 * soft memory limit: it collects only when a compile nears the limit). Cold builds (empty GOCACHE):
 * versitygw 142.1 → 105.8 CPU s (peak RSS of one compile 0.68 → 1.54 GB), the TLS proxy 28.0 → 21.5
 * CPU s; docs/timings.md.
 */
const GO_BUILD_MEMORY_LIMIT = '3GiB';
export function goEnv(ctx: StackContext): NodeJS.ProcessEnv {
  return {
    GOMODCACHE: path.join(ctx.cacheDir, 'go', 'mod'),
    GOCACHE: path.join(ctx.cacheDir, 'go', 'build'),
    GOFLAGS: '-modcacherw',
    CGO_ENABLED: '0',
    GOGC: 'off',
    GOMEMLIMIT: GO_BUILD_MEMORY_LIMIT,
  };
}

/** `go install pkg@version` for each package into `<binDir>`. */
export async function goInstall(ctx: StackContext, binDir: string, pkgs: readonly string[], ldflags = '-s -w'): Promise<void> {
  if (!(await which('go')))
    throw new StackError(
      'TOOL_MISSING',
      'go is not on PATH: install Go >= 1.25 (the Temporal CLI and versitygw are built from Go modules)',
    );
  await fs.mkdir(binDir, { recursive: true });
  await exclusive('go', () =>
    run('go', ['install', `-ldflags=${ldflags}`, ...pkgs], {
      env: { ...goEnv(ctx), GOBIN: binDir },
      logTo: path.join(ctx.cacheDir, 'install.log'),
    }),
  );
}

export function mavenRepo(ctx: StackContext): string {
  return path.join(ctx.cacheDir, 'm2');
}

/** Copy Maven artifacts (`g:a:v[:type[:classifier]]`, no transitive deps) into destDir. */
export async function mavenCopy(ctx: StackContext, artifacts: readonly string[], destDir: string): Promise<void> {
  if (!(await which('mvn'))) throw new StackError('TOOL_MISSING', 'mvn is not on PATH: install Maven (apt-get install maven)');
  await fs.mkdir(destDir, { recursive: true });
  await exclusive('mvn', () => mavenCopyEach(ctx, artifacts, destDir));
}

async function mavenCopyEach(ctx: StackContext, artifacts: readonly string[], destDir: string): Promise<void> {
  for (const a of artifacts) {
    // dependency:copy wants g:a:v[:packaging[:classifier]] like dependency:get's order:
    // g:a:v:type:classifier → g:a:v:type:classifier is accepted as "artifact" by both goals.
    await run(
      'mvn',
      [
        '-B',
        '-q',
        `-Dmaven.repo.local=${mavenRepo(ctx)}`,
        'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy',
        `-Dartifact=${a}`,
        `-DoutputDirectory=${destDir}`,
        '-Dmdep.useBaseVersion=true',
      ],
      { logTo: path.join(ctx.cacheDir, 'install.log'), cwd: destDir },
    );
  }
}

/**
 * Resolve a throw-away pom's dependencies (with exclusions) into destDir: how we give the HMS
 * tarball the Hadoop and JDBC jars it does not ship.
 */
export async function mavenCopyDependencies(ctx: StackContext, pomXml: string, destDir: string): Promise<void> {
  const work = path.join(destDir, '..', `pom-${path.basename(destDir)}`);
  await fs.mkdir(work, { recursive: true });
  await fs.writeFile(path.join(work, 'pom.xml'), pomXml);
  await fs.mkdir(destDir, { recursive: true });
  await exclusive('mvn', () =>
    run(
      'mvn',
      [
        '-B',
        '-q',
        `-Dmaven.repo.local=${mavenRepo(ctx)}`,
        'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies',
        `-DoutputDirectory=${destDir}`,
        '-DincludeScope=runtime',
      ],
      { cwd: work, logTo: path.join(ctx.cacheDir, 'install.log') },
    ),
  );
}

let aptUpdated = false;
/** Install Debian packages when `probe` (a binary path) is missing. Needs root (as on CI). */
export async function aptEnsure(ctx: StackContext, probe: string, packages: readonly string[]): Promise<void> {
  if (existsSync(probe)) return;
  await exclusive('apt', () => aptInstall(ctx, probe, packages));
}

async function aptInstall(ctx: StackContext, probe: string, packages: readonly string[]): Promise<void> {
  if (existsSync(probe)) return; // another lane installed it while this one waited
  if (process.getuid?.() !== 0) {
    throw new StackError('TOOL_MISSING', `${probe} is missing and we are not root: run 'sudo apt-get install -y ${packages.join(' ')}'`);
  }
  ctx.log(`apt-get install ${packages.join(' ')} ...`);
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  const log = path.join(ctx.cacheDir, 'install.log');
  await fs.mkdir(ctx.cacheDir, { recursive: true });
  if (!aptUpdated) {
    await run('apt-get', ['update'], { env, logTo: log });
    aptUpdated = true;
  }
  // policy-rc.d on these machines denies service starts; we never use the system services anyway.
  await run('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { env, logTo: log });
  if (!existsSync(probe)) throw new StackError('INSTALL_FAILED', `apt-get installed ${packages.join(' ')} but ${probe} is still missing`);
}
